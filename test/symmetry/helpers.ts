import { Rng } from '../../src/random/rng.js';
import type { Para } from '../../src/para/para.js';
import { Tensor } from '../../src/tensor/tensor.js';
import type { Mat } from '../../src/linalg/matrix.js';

export function randn(shape: number[], seed: number, dtype: 'float32' | 'float64' = 'float32'): Tensor {
  const rng = new Rng(seed);
  const t = Tensor.zeros(shape, dtype);
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
}

/** x·ρᵀ for a batch of row vectors x [B, n]. */
export function act(rho: Mat, x: Tensor): Tensor {
  const n = rho.rows,
    B = x.size / n;
  const y = Tensor.zeros(x.shape, x.dtype);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < n; j++) s += rho.data[i * n + j]! * x.data[b * n + j]!;
      y.data[b * n + i] = s;
    }
  return y;
}

/** Relative error ‖a − b‖ / ‖b‖. */
export function relErr(a: Tensor, b: Tensor): number {
  let d = 0,
    n = 0;
  for (let i = 0; i < a.size; i++) {
    d += (a.data[i]! - b.data[i]!) ** 2;
    n += b.data[i]! ** 2;
  }
  return Math.sqrt(d / Math.max(n, 1e-30));
}

/** Permutes the axis `axis` of a per-sample tensor: y[…, σ(i), …] = x[…, i, …]. */
export function permuteAxis(x: Tensor, axis: number, sigma: ArrayLike<number>): Tensor {
  const shape = x.shape;
  const inner = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
  const n = shape[axis]!;
  const outer = x.size / (inner * n);
  const y = Tensor.zeros(shape, x.dtype);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < n; i++) y.data.set(x.data.subarray((o * n + i) * inner, (o * n + i + 1) * inner), (o * n + sigma[i]!) * inner);
  return y;
}

export function run(f: Para, theta: Tensor[], x: Tensor): Tensor {
  return f.run(theta, x);
}
