import { dampedSolve } from './cholesky.js';

/**
 * Small dense float64 linear algebra for fitting feature-space maps (a few dozen
 * dimensions): ridge-regularised affine least squares by Cholesky.
 */

/** Solves (A + λI) X = B for symmetric positive semi-definite A [n×n], B [n×m], by Cholesky; returns X [n×m]. */
export function solveSpd(A: Float64Array, B: Float64Array, n: number, m: number, lambda: number): Float64Array {
  return dampedSolve(A, n, B, lambda, m, true);
}

/** An affine map h ↦ W h + b on feature vectors, W [q×p]. */
export interface AffineMap {
  readonly W: Float64Array;
  readonly b: Float64Array;
  readonly p: number;
  readonly q: number;
}

export function applyAffine(f: AffineMap, h: ArrayLike<number>, rows: number): Float64Array {
  const { W, b, p, q } = f;
  const out = new Float64Array(rows * q);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < q; i++) {
      let s = b[i]!;
      for (let j = 0; j < p; j++) s += W[i * p + j]! * h[r * p + j]!;
      out[r * q + i] = s;
    }
  }
  return out;
}

/**
 * The affine map that best sends the rows of H [N×p] to the rows of H′ [N×q] in the
 * least-squares sense, with ridge λ·(trace of the centred Gram matrix / p) on W (not on b),
 * so an exactly affine relation is recovered up to rounding when λ is tiny. With
 * `towardIdentity` (p = q) the ridge pulls W toward I instead of 0 — minimising
 * ‖HW − H′‖² + λ‖W − I‖² — so directions the data never visit are left fixed, as an
 * endomorphism induced by a small input change should leave them.
 */
export function fitAffine(H: ArrayLike<number>, Hp: ArrayLike<number>, N: number, p: number, q: number, lambda = 1e-9, towardIdentity = false): AffineMap {
  const mh = new Float64Array(p),
    mt = new Float64Array(q);
  for (let r = 0; r < N; r++) {
    for (let j = 0; j < p; j++) mh[j]! += H[r * p + j]! / N;
    for (let j = 0; j < q; j++) mt[j]! += Hp[r * q + j]! / N;
  }
  const A = new Float64Array(p * p),
    B = new Float64Array(p * q);
  for (let r = 0; r < N; r++) {
    for (let i = 0; i < p; i++) {
      const hi = H[r * p + i]! - mh[i]!;
      for (let j = 0; j < p; j++) A[i * p + j]! += hi * (H[r * p + j]! - mh[j]!);
      for (let j = 0; j < q; j++) B[i * q + j]! += hi * (Hp[r * q + j]! - mt[j]!);
    }
  }
  let tr = 0;
  for (let i = 0; i < p; i++) tr += A[i * p + i]!;
  const lam = lambda * Math.max(tr / p, 1e-12);
  if (towardIdentity && p === q) for (let i = 0; i < p; i++) B[i * q + i]! += lam;
  const X = solveSpd(A, B, p, q, lam);
  const W = new Float64Array(q * p);
  for (let i = 0; i < p; i++) for (let j = 0; j < q; j++) W[j * p + i] = X[i * q + j]!;
  const b = new Float64Array(q);
  for (let j = 0; j < q; j++) {
    let s = mt[j]!;
    for (let i = 0; i < p; i++) s -= W[j * p + i]! * mh[i]!;
    b[j] = s;
  }
  return { W, b, p, q };
}
