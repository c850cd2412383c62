// The backend suite (test/tensor/backend-suite.ts) and the transformer kernels'
// (transformer-kernels-suite.ts) on the webgpu backend of this browser,
// bundled by Vite as the playground is; the result lands in window.result.
import { createWebGpuBackend } from '../../../src/tensor/webgpu/backend.js';
import { backendSuite } from '../../tensor/backend-suite.js';
import { deviceMirror } from '../../tensor/device-mirror.js';
import { transformerKernelSuite } from '../../tensor/transformer-kernels-suite.js';
import { run } from './vitest-shim.js';

// the two uses of Node's Buffer in the suite: comparing and printing the bytes of an array
const bytes = (b: ArrayBufferLike, off = 0, len?: number): Uint8Array => new Uint8Array(b, off, len ?? b.byteLength - off);
(globalThis as Record<string, unknown>).Buffer ??= {
  from: (b: ArrayBufferLike, off?: number, len?: number) => {
    const u = bytes(b, off, len);
    return {
      equals: (o: { u: Uint8Array }) => u.length === o.u.length && u.every((v, i) => v === o.u[i]),
      toString: () => Array.from(u, (v) => v.toString(16).padStart(2, '0')).join(''),
      u,
    };
  },
};

const out = window as unknown as { result?: unknown };
try {
  const gpu = await createWebGpuBackend();
  backendSuite([deviceMirror(gpu)]);
  transformerKernelSuite([deviceMirror(gpu)]);
  out.result = { adapter: gpu.device.label, ...(await run()) };
} catch (e) {
  out.result = { error: String((e as Error).stack ?? e) };
}
