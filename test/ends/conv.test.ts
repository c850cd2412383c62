import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { conv2d, Tensor } from '../../src/index.js';
import { FunctorError } from '../../src/category/index.js';
import { conv2dSame } from '../../src/ends/index.js';

describe('conv2dSame, the zero-padded "same" correlation of the gluing demos', () => {
  it('is the conv2d layer with stride 1 and padding (k − 1)/2 (one window arithmetic), and the direct sum', () => {
    const grid = fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), fc.constantFrom(1, 3, 5));
    fc.assert(
      fc.property(
        grid.chain(([h, w, k]) =>
          fc.tuple(
            fc.constant([h, w, k] as const),
            fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: h * w, maxLength: h * w }),
            fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: k * k, maxLength: k * k }),
          ),
        ),
        ([[h, w, k], x, kernel]) => {
          const y = conv2dSame(x, h, w, kernel, k, k);
          const layer = conv2d(1, 1, k, 1, (k - 1) / 2, [1, h, w]);
          const viaLayer = layer.run([Tensor.of(kernel, [1, 1, k, k], 'float64'), Tensor.of([0], [1], 'float64')], Tensor.of(x, [1, 1, h, w], 'float64'));
          const r = (k - 1) / 2;
          for (let i = 0; i < h; i++)
            for (let j = 0; j < w; j++) {
              let s = 0;
              for (let p = 0; p < k; p++)
                for (let q = 0; q < k; q++) {
                  const a = i + p - r,
                    b = j + q - r;
                  if (a >= 0 && a < h && b >= 0 && b < w) s += kernel[p * k + q]! * x[a * w + b]!;
                }
              expect(y[i * w + j]).toBe(s);
              expect(viaLayer.data[i * w + j]!).toBeCloseTo(s, 12);
            }
        },
      ),
    );
  });

  it('refuses a kernel that is not finite, naming the value', () => {
    expect(() => conv2dSame([1, 2, 3], 1, 3, [0, NaN, 0], 1, 3)).toThrow(FunctorError);
    expect(() => conv2dSame([1, 2, 3], 1, 3, [0, Infinity, 0], 1, 3)).toThrow(/kernel value 2 is Infinity; expected finite numbers/);
  });
});
