// The backend suite on the webgpu backend in Node (Dawn, from the `webgpu` package; here on
// SwiftShader, Chromium's Vulkan driver on the CPU): every kernel on device arrays, checked
// with the host backends' assertions. Without an adapter it skips with the reason — and fails
// under CI=true, where one must be available (.ci/run installs libvulkan1 and chromium).
import { describe, expect, it } from 'vitest';
import { describeWith, webgpuBackend } from '../peer/available.js';
import { backendSuite } from './backend-suite.js';
import { deviceMirror } from './device-mirror.js';
import { transformerKernelSuite } from './transformer-kernels-suite.js';

const { peer, value: gpu } = await webgpuBackend();

describeWith(peer, 'the webgpu backend', () => {
  backendSuite([deviceMirror(gpu!)]);
  transformerKernelSuite([deviceMirror(gpu!)]);

  describe('webgpu specifics', () => {
    it('the kernels ran on the device, and a host output of device values is refused', () => {
      expect(gpu!.dispatches()).toBeGreaterThan(100);
      const d = gpu!.device.alloc(4);
      expect(() => gpu!.axpy(1, d, new Float32Array(4))).toThrow(/would write device values into a host array/);
      expect(() => gpu!.allFinite(d)).toThrow(/markNonFinite/);
    });
  });
});
