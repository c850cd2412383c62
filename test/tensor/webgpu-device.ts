// The webgpu backend for the tests (one per test file), or why there is none here.
import { createWebGpuBackend } from '../../src/tensor/webgpu/backend.js';
import type { WebGpuBackend } from '../../src/tensor/webgpu/backend.js';

export const gpu: WebGpuBackend | Error = await createWebGpuBackend().catch((e: Error) => e);
export const ci = Boolean(process.env['CI']);
if (gpu instanceof Error && !ci) console.warn(`skipping webgpu tests: ${gpu.message}`);
