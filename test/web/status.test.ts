import { describe, expect, it } from 'vitest';
import { firstClause, gpuFallbackNote, hostNote, whereItRuns } from '../../web/status.js';

describe("the playground's status words (web/status.ts)", () => {
  it('says why the page is on the CPU in words for a browser, without the advice meant for Node', () => {
    expect(gpuFallbackNote(new Error('no WebGPU'), false)).toBe('no WebGPU in this browser');
    // the library's message when a runtime has WebGPU but no adapter (src/tensor/webgpu/adapter.ts)
    const noAdapter = new Error(
      "backend 'webgpu' cannot start here: no WebGPU adapter here (a browser without WebGPU, or Node without a Vulkan driver: apt-get install libvulkan1 chromium gives SwiftShader)",
    );
    expect(gpuFallbackNote(noAdapter, true)).toBe('no GPU for WebGPU here');
    expect(gpuFallbackNote(new Error("backend 'webgpu' cannot start here: requestDevice: limits exceed the adapter's (maxBufferSize)"), true)).toBe(
      'WebGPU did not start: requestDevice',
    );
  });

  it("keeps the first clause of the device trainer's refusal, not its CLI advice", () => {
    expect(
      hostNote(
        new Error('webgpu has no device path for dropout (in dense(2,16) >> dropout(0.1)): it computes on host arrays; train this model with --backend wasm'),
      ),
    ).toBe('on the host: webgpu has no device path for dropout');
    expect(
      hostNote(new Error('webgpu has no device path for the loss hinge; use mse, bce, softmax-cross-entropy or token-cross-entropy, or --backend wasm')),
    ).toBe('on the host: webgpu has no device path for the loss hinge');
  });

  it('cuts a clause at 60 characters and joins the backend and the note with a dot', () => {
    const long = firstClause('x'.repeat(200));
    expect(long).toHaveLength(60);
    expect(long.endsWith('…')).toBe(true);
    expect(whereItRuns('wasm, relaxed SIMD, 2 threads', 'no WebGPU in this browser')).toBe('wasm, relaxed SIMD, 2 threads · no WebGPU in this browser');
    expect(whereItRuns('webgpu, nvidia')).toBe('webgpu, nvidia');
  });
});
