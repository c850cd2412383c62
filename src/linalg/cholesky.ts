import { RangeArgError } from '../errors.js';

/**
 * Solves (F + λI) X = B for symmetric positive (semi)definite F (P×P) and the `cols` columns
 * of B (P×cols, row-major), with one Cholesky factorisation for all of them. A pivot ≤ 0
 * throws a RangeArgError (raise λ) — or, with `clampPivots`, is taken as 1e-300 (ridge fits
 * of rank-deficient features).
 */
export function dampedSolve(F: Float64Array, P: number, B: Float64Array, damping: number, cols = 1, clampPivots = false): Float64Array {
  const L = new Float64Array(P * P);
  for (let i = 0; i < P; i++)
    for (let j = 0; j <= i; j++) {
      let s = F[i * P + j]! + (i === j ? damping : 0);
      for (let k = 0; k < j; k++) s -= L[i * P + k]! * L[j * P + k]!;
      if (i === j) {
        if (!(s > 0) && !clampPivots)
          throw new RangeArgError(`natural gradient: F + λI is not positive definite (pivot ${s.toExponential(2)} at ${i}); raise the damping`);
        L[i * P + i] = Math.sqrt(Math.max(s, 1e-300));
      } else L[i * P + j] = s / L[j * P + j]!;
    }
  const X = new Float64Array(P * cols),
    y = new Float64Array(P);
  for (let c = 0; c < cols; c++) {
    for (let i = 0; i < P; i++) {
      let s = B[i * cols + c]!;
      for (let k = 0; k < i; k++) s -= L[i * P + k]! * y[k]!;
      y[i] = s / L[i * P + i]!;
    }
    for (let i = P - 1; i >= 0; i--) {
      let s = y[i]!;
      for (let k = i + 1; k < P; k++) s -= L[k * P + i]! * y[k]!;
      y[i] = s / L[i * P + i]!;
    }
    for (let i = 0; i < P; i++) X[i * cols + c] = y[i]!;
  }
  return X;
}
