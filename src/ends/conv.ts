import { FunctorError } from '../category/errors.js';
import { im2col, makeWindow } from '../tensor/window.js';

/**
 * A zero-padded "same" 2-D correlation, y[i, j] = Σ_{p,q} k[p, q]·x[i + p − r_h, j + q − r_w]
 * with x = 0 outside the h × w grid (r_h = (k_h − 1)/2, r_w = (k_w − 1)/2; odd kernel sizes).
 * It commutes with translations away from the border (seed 001, "a convolution layer is
 * simply an end over the translation group"), which is what lets patches be processed
 * locally and glued. A 1-D signal is the grid 1 × n with a 1 × k kernel.
 */
export function conv2dSame(x: ArrayLike<number>, h: number, w: number, kernel: ArrayLike<number>, kh: number, kw: number): Float64Array {
  if (x.length !== h * w) throw new FunctorError(`conv2dSame: the input has ${x.length} values but the grid is ${h}×${w} = ${h * w}`);
  if (kernel.length !== kh * kw) throw new FunctorError(`conv2dSame: the kernel has ${kernel.length} values but is ${kh}×${kw} = ${kh * kw}`);
  if (kh % 2 !== 1 || kw % 2 !== 1) throw new FunctorError(`conv2dSame: kernel sizes must be odd (centred), got ${kh}×${kw}`);
  for (let t = 0; t < kernel.length; t++)
    if (!Number.isFinite(kernel[t]!)) throw new FunctorError(`conv2dSame: kernel value ${t + 1} is ${kernel[t]}; expected finite numbers`);
  if (h * w === 0) return new Float64Array(0);
  // the window arithmetic of every convolution (src/tensor/window.ts): stride 1, padding (k − 1)/2
  const g = makeWindow('conv2dSame', 1, h, w, kh, kw, 1, 1, (kh - 1) / 2, (kw - 1) / 2);
  const P = h * w,
    col = new Float64Array(kh * kw * P);
  im2col(g, Float64Array.from(x), 0, col, P, 0);
  // y = kernel · col, the taps in row-major order as in the sum above; a tap in the padding reads 0
  const y = new Float64Array(P);
  for (let t = 0; t < kh * kw; t++) {
    const k = kernel[t]!;
    for (let p = 0; p < P; p++) y[p]! += k * col[t * P + p]!;
  }
  return y;
}
