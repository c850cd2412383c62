import { FunctorError } from '../category/errors.js';

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
  const rh = (kh - 1) / 2, rw = (kw - 1) / 2;
  const y = new Float64Array(h * w);
  for (let i = 0; i < h; i++) {
    for (let j = 0; j < w; j++) {
      let s = 0;
      for (let p = 0; p < kh; p++) {
        const ii = i + p - rh;
        if (ii < 0 || ii >= h) continue;
        for (let q = 0; q < kw; q++) {
          const jj = j + q - rw;
          if (jj < 0 || jj >= w) continue;
          s += kernel[p * kw + q]! * x[ii * w + jj]!;
        }
      }
      y[i * w + j] = s;
    }
  }
  return y;
}
