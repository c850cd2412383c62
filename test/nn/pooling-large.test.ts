import { afterAll, describe, expect, it } from 'vitest';
import { makeCtx, maxpool2d, Tensor } from '../../src/index.js';
import { setBackend } from '../../src/tensor/registry.js';
import type { Backend } from '../../src/tensor/backend.js';
import { jsBackend } from '../../src/tensor/js-backend.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';

// maxpool2d stores where each maximum came from in the data's dtype; float32 is exact only
// below 2^24, so larger inputs are pooled in groups of planes with offsets from the group's
// start. 5 planes of 2048×2048 are 2^24 + 2^22 values: the last pixel's offset is odd and
// above 2^24, where a float32 offset would round to the next pixel.
const wasm = await createWasmBackend({ name: 'wasm-pool' });
afterAll(() => wasm.dispose());

describe('maxpool2d on more than 2^24 values', () => {
  it.each([
    ['js', jsBackend],
    ['wasm', wasm],
  ] as [string, Backend][])('sends the gradient to the exact pixel on %s', (_n, be) => {
    setBackend(be);
    try {
      const B = 5,
        H = 2048,
        W = 2048,
        last = B * H * W - 1;
      const x = Tensor.zeros([B, 1, H, W]);
      x.data[last] = 7;
      const lens = maxpool2d(2).at([1, H, W]).forward([], x, makeCtx());
      const out = lens.y.size - 1;
      expect(lens.y.data[out]).toBe(7);
      const dy = Tensor.zeros(lens.y.shape);
      dy.data[out] = 1;
      const dx = lens.pullback(dy, null);
      expect(dx.data[last]).toBe(1);
      expect(dx.data[last - 1]).toBe(0);
      expect(dx.data.reduce((s, v) => s + v, 0)).toBe(1);
    } finally {
      setBackend(jsBackend);
    }
  });
});
