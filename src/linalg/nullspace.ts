import type { Mat } from './matrix.js';
import type { Sparse } from './sparse.js';
import { sparseFromDense } from './sparse.js';

export interface NullspaceOptions {
  /** Pivots below tol·max(diag CᵀC) count as zero (default 1e-9). */
  tol?: number;
}

/**
 * An orthonormal basis (rows of the result, k×n) of the nullspace {x : C x = 0} of the
 * stacked constraints C = [C₁; C₂; …] (each m_i × n), in float64.
 *
 * Method: the Gram matrix M = CᵀC = Σ C_iᵀC_i is formed from the sparse rows, then
 * factorised by Cholesky with complete (diagonal) pivoting, M = Π L Lᵀ Πᵀ, which reveals
 * the rank r; the nullspace is Π·[−L₁₁⁻ᵀL₂₁ᵀ; I] (Golub & Van Loan §5.4.2 for the
 * rank-revealing factorisation, applied to the normal equations), orthonormalised by twice
 * modified Gram–Schmidt. Cost O(n³/3) time, 8n² bytes.
 */
export function nullspace(constraints: Mat | Sparse | readonly Sparse[], opts: NullspaceOptions = {}): Mat {
  const cs: readonly Sparse[] = Array.isArray(constraints)
    ? constraints
    : ['rowPtr' in (constraints as object) ? (constraints as Sparse) : sparseFromDense(constraints as Mat)];
  const n = cs[0]?.cols ?? 0;
  const exact = identificationNullspace(cs, n);
  if (exact) return exact;
  const M = gram(cs, n);
  return nullspaceOfGram(M, n, opts.tol ?? 1e-9);
}

/**
 * Fast exact path: when every constraint row is an identification a·(x_i − x_j) = 0 or a
 * pin a·x_i = 0, ker C is spanned by the (normalised) indicators of the connected
 * components of the identifications that contain no pinned coordinate — found by union-find,
 * as the orbit solver does for permutation representations. Returns undefined otherwise.
 */
export function identificationNullspace(cs: readonly Sparse[], n: number): Mat | undefined {
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  const pinned: number[] = [];
  for (const C of cs)
    for (let r = 0; r < C.rows; r++) {
      const a = C.rowPtr[r]!,
        b = C.rowPtr[r + 1]!;
      if (b - a === 0) continue;
      if (b - a === 1) {
        if (C.vals[a] !== 0) pinned.push(C.colIdx[a]!);
        continue;
      }
      if (b - a !== 2 || C.vals[a] !== -C.vals[a + 1]! || C.vals[a] === 0) return undefined;
      const x = find(C.colIdx[a]!),
        y = find(C.colIdx[a + 1]!);
      if (x !== y) parent[Math.max(x, y)] = Math.min(x, y);
    }
  const dead = new Uint8Array(n);
  for (const p of pinned) dead[find(p)] = 1;
  const label = new Int32Array(n).fill(-1),
    sizes: number[] = [];
  const compOf = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const root = find(i);
    if (dead[root]) {
      compOf[i] = -1;
      continue;
    }
    if (label[root] === -1) {
      label[root] = sizes.length;
      sizes.push(0);
    }
    compOf[i] = label[root]!;
    sizes[label[root]!]!++;
  }
  const k = sizes.length;
  const data = new Float64Array(k * n);
  for (let i = 0; i < n; i++) if (compOf[i]! >= 0) data[compOf[i]! * n + i] = 1 / Math.sqrt(sizes[compOf[i]!]!);
  return { rows: k, cols: n, data };
}

/** M = Σ CᵀC, dense n×n. */
function gram(cs: readonly Sparse[], n: number): Float64Array {
  const M = new Float64Array(n * n);
  for (const C of cs)
    for (let r = 0; r < C.rows; r++) {
      const a = C.rowPtr[r]!,
        b = C.rowPtr[r + 1]!;
      for (let x = a; x < b; x++) {
        const j = C.colIdx[x]!,
          v = C.vals[x]!;
        for (let y = a; y < b; y++) M[j * n + C.colIdx[y]!]! += v * C.vals[y]!;
      }
    }
  return M;
}

/** The nullspace of a symmetric positive semidefinite n×n matrix, by pivoted Cholesky. */
export function nullspaceOfGram(Min: Float64Array, n: number, tol: number): Mat {
  const A = Float64Array.from(Min);
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  let maxDiag = 0;
  for (let i = 0; i < n; i++) maxDiag = Math.max(maxDiag, A[i * n + i]!);
  const thresh = tol * Math.max(maxDiag, 1e-300);
  let r = 0;
  const col = new Float64Array(n);
  // A is overwritten by L (columns < k) in pivoted order; the trailing block stays the full Schur complement.
  for (let k = 0; k < n; k++) {
    let p = k;
    for (let i = k + 1; i < n; i++) if (A[i * n + i]! > A[p * n + p]!) p = i;
    if (!(A[p * n + p]! > thresh) || maxDiag === 0) break;
    if (p !== k) {
      for (let j = 0; j < n; j++) [A[k * n + j], A[p * n + j]] = [A[p * n + j]!, A[k * n + j]!];
      for (let j = 0; j < n; j++) [A[j * n + k], A[j * n + p]] = [A[j * n + p]!, A[j * n + k]!];
      [perm[k], perm[p]] = [perm[p]!, perm[k]!];
    }
    const lkk = Math.sqrt(A[k * n + k]!);
    A[k * n + k] = lkk;
    // column k of L, copied contiguous so the rank-1 update of the Schur complement streams rows
    for (let i = k + 1; i < n; i++) col[i] = A[i * n + k]! /= lkk;
    for (let i = k + 1; i < n; i++) {
      const lik = col[i]!;
      if (lik === 0) continue;
      const rowI = i * n;
      for (let j = k + 1; j < n; j++) A[rowI + j]! -= lik * col[j]!;
    }
    r = k + 1;
  }
  const k = n - r;
  const out = new Float64Array(k * n);
  const x1 = new Float64Array(r);
  for (let j = 0; j < k; j++) {
    // solve L11ᵀ x1 = −L21ᵀ e_j  (L11ᵀ upper triangular)
    const row = (r + j) * n;
    for (let i = r - 1; i >= 0; i--) {
      let s = -A[row + i]!;
      for (let t = i + 1; t < r; t++) s -= A[t * n + i]! * x1[t]!;
      x1[i] = s / A[i * n + i]!;
    }
    for (let i = 0; i < r; i++) out[j * n + perm[i]!] = x1[i]!;
    out[j * n + perm[r + j]!] = 1;
  }
  orthonormalizeRows(out, k, n);
  return { rows: k, cols: n, data: out };
}

/** Modified Gram–Schmidt, twice ("twice is enough", Giraud et al. 2005), on the k rows of X (k×n), in place. */
export function orthonormalizeRows(X: Float64Array, k: number, n: number): void {
  for (let pass = 0; pass < 2; pass++)
    for (let i = 0; i < k; i++) {
      const xi = X.subarray(i * n, (i + 1) * n);
      for (let j = 0; j < i; j++) {
        const xj = X.subarray(j * n, (j + 1) * n);
        let d = 0;
        for (let t = 0; t < n; t++) d += xi[t]! * xj[t]!;
        for (let t = 0; t < n; t++) xi[t]! -= d * xj[t]!;
      }
      let s = 0;
      for (let t = 0; t < n; t++) s += xi[t]! * xi[t]!;
      const inv = 1 / Math.sqrt(s);
      for (let t = 0; t < n; t++) xi[t]! *= inv;
    }
}
