// The backend suite on the webgpu backend in Node (Dawn, from the `webgpu` package; here on
// SwiftShader, Chromium's Vulkan driver on the CPU): every kernel on device arrays, checked
// with the host backends' assertions. Without an adapter it skips with the reason — and fails
// under CI=true, where one must be available (.ci/run installs libvulkan1 and chromium).
import { describe, expect, it } from 'vitest';
import { backendSuite } from './backend-suite.js';
import { deviceMirror } from './device-mirror.js';
import { ci, gpu } from './webgpu-device.js';

describe('webgpu adapter', () => {
  it.runIf(ci || !(gpu instanceof Error))('is available (required under CI)', () => {
    if (gpu instanceof Error) throw gpu;
    expect(gpu.device.label).toMatch(/\S/);
  });
});

if (!(gpu instanceof Error)) {
  const mirror = deviceMirror(gpu);
  backendSuite([mirror]);

  describe('webgpu specifics', () => {
    it('the kernels ran on the device, and a host output of device values is refused', () => {
      expect(gpu.dispatches()).toBeGreaterThan(100);
      const d = gpu.device.alloc(4);
      expect(() => gpu.axpy(1, d, new Float32Array(4))).toThrow(/would write device values into a host array/);
      expect(() => gpu.allFinite(d)).toThrow(/markNonFinite/);
    });
  });
}
