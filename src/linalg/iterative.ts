import type { Rng } from '../random/rng.js';
import { ParalensError, SolveTooLargeError, WorkMeter } from '../errors.js';
import { orthonormalizeRows } from './nullspace.js';

/** A linear map R^n → R^m known only by its products with vectors (and its transpose's). */
export interface LinearOperator {
  readonly n: number;
  readonly m: number;
  apply(x: Float64Array, out: Float64Array): void;
  applyT(y: Float64Array, out: Float64Array): void;
  /** Multiply-adds of one apply (or applyT), for the work budget (default n + m). */
  readonly cost?: number;
}

/**
 * The most multiply-adds an iterative solve may spend: its length shows only while it runs
 * (the iterations until each projection converges, the dimension found), so it is metered as
 * it goes and refused once spent. Sparse products run at about 0.2 G multiply-adds a second
 * here, so this is about 4 s (`S(48)xO(8)` on V → V spends 7.0e8 in 3.2 s).
 */
const ITERATIVE_WORK_LIMIT = 8e8;

export interface IterativeOptions {
  rng: Rng;
  /** Relative residual ‖C x‖ / ‖x‖ to reach (default 1e-10). */
  tol?: number;
  /** Give up (SolveTooLargeError) when the nullspace turns out larger than this (default 512). */
  maxDim?: number;
  /** CGLS iterations per projection (default 20·√n + 200). */
  maxIter?: number;
  /** Multiply-adds allowed in all (default ITERATIVE_WORK_LIMIT); TooLargeError beyond. */
  maxWork?: number;
}

/**
 * Matrix-free nullspace of C (EMLP §5, "Krylov" variant, done as a projected iteration):
 * a random vector r is projected onto ker C by solving the least-squares problem
 * min_y ‖Cᵀy − r‖ with CGLS — its residual r − Cᵀy is the orthogonal projection of r onto
 * ker C — using only products with C and Cᵀ (Kronecker mat-vecs of the representation
 * matrices). Projections of fresh random vectors, orthogonalised against the basis so far,
 * are added until one adds nothing: then (with probability 1) the basis spans ker C.
 * Memory: the basis (dim·n) and a few vectors of length n and m.
 */
export function iterativeNullspace(C: LinearOperator, opts: IterativeOptions): { basis: Float64Array; dim: number; iterations: number } {
  const { n, m } = C;
  const tol = opts.tol ?? 1e-10,
    maxDim = opts.maxDim ?? 512,
    maxIter = opts.maxIter ?? Math.ceil(20 * Math.sqrt(n)) + 200;
  const basis: Float64Array[] = [];
  const s = new Float64Array(m),
    p = new Float64Array(m),
    q = new Float64Array(n),
    r = new Float64Array(n);
  let iterations = 0;
  const meter = new WorkMeter(`the iterative end solver (${n} unknowns, ${m} constraints)`, opts.maxWork ?? ITERATIVE_WORK_LIMIT);
  const step = 2 * (C.cost ?? n + m) + 3 * n + m;
  const project = (v: Float64Array): void => {
    meter.spend(2 * n * basis.length);
    for (const b of basis) {
      let d = 0;
      for (let t = 0; t < n; t++) d += v[t]! * b[t]!;
      for (let t = 0; t < n; t++) v[t]! -= d * b[t]!;
    }
  };
  const norm = (v: Float64Array): number => Math.sqrt(sumSquares(v));
  for (;;) {
    for (let t = 0; t < n; t++) r[t] = opts.rng.normal();
    project(r);
    const r0 = norm(r);
    // CGLS on min ‖Cᵀy − r‖: the running residual r is the projection onto ker C.
    C.apply(r, s);
    p.set(s);
    let gamma = sumSquares(s);
    for (let it = 0; it < maxIter && Math.sqrt(gamma) > tol * r0 * 1e-2; it++) {
      meter.spend(step);
      C.applyT(p, q);
      const qq = sumSquares(q);
      if (qq === 0) break;
      const alpha = gamma / qq;
      for (let t = 0; t < n; t++) r[t]! -= alpha * q[t]!;
      C.apply(r, s);
      const g2 = sumSquares(s);
      const beta = g2 / gamma;
      for (let t = 0; t < m; t++) p[t] = s[t]! + beta * p[t]!;
      gamma = g2;
      iterations++;
    }
    project(r);
    const rn = norm(r);
    if (rn < 1e-6 * r0) break;
    C.apply(r, s);
    if (norm(s) > 1e-6 * rn) {
      throw new ParalensError(
        'E_NOCONVERGE',
        `iterative end solver: CGLS did not reach a null vector in ${maxIter} iterations (relative residual ${(norm(s) / rn).toExponential(2)})`,
        false,
      );
    }
    if (basis.length >= maxDim) {
      throw new SolveTooLargeError(
        `iterative end solver: the basis has more than ${maxDim} elements (${n} unknowns); raise maxDim or restrict the representations`,
        8 * n * maxDim,
      );
    }
    const b = Float64Array.from(r);
    orthonormalizeRows(b, 1, n);
    basis.push(b);
  }
  const out = new Float64Array(basis.length * n);
  basis.forEach((b, i) => out.set(b, i * n));
  orthonormalizeRows(out, basis.length, n);
  return { basis: out, dim: basis.length, iterations };
}

/** Σ vᵢ² by a plain loop (a typed array's reduce calls a function per element: several times slower). */
function sumSquares(v: Float64Array): number {
  let a = 0;
  for (let i = 0; i < v.length; i++) a += v[i]! * v[i]!;
  return a;
}
