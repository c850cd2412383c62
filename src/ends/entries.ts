import type { Mat } from '../linalg/matrix.js';
import type { VectDifunctor } from '../category/vect-functor.js';

/**
 * A matrix by its nonzero entries (coordinate lists): how a functor's actions enter the
 * constraints of an end or the relations of a coend. A Kronecker product I ⊗ ρ(g) of n_out·n_in
 * rows has only nnz(ρ(g))·n_out of them — for a permutation representation one per row — so a
 * functor that can give its actions this way (SparseActions) never builds an n×n dense matrix.
 */
export interface MatEntries {
  readonly rows: number;
  readonly cols: number;
  readonly row: Int32Array;
  readonly col: Int32Array;
  readonly value: Float64Array;
}

/** A functor's actions as entries, where it has them cheaper than its dense matrices. */
export interface SparseActions {
  leftEntries(f: number, b: number): MatEntries;
  rightEntries(a: number, g: number): MatEntries;
}

/** The nonzero entries of a dense matrix, row by row. */
export function entriesOf(M: Mat): MatEntries {
  let k = 0;
  for (let i = 0; i < M.data.length; i++) if (M.data[i] !== 0) k++;
  const row = new Int32Array(k),
    col = new Int32Array(k),
    value = new Float64Array(k);
  k = 0;
  for (let i = 0; i < M.rows; i++)
    for (let j = 0; j < M.cols; j++) {
      const v = M.data[i * M.cols + j]!;
      if (v !== 0) ((row[k] = i), (col[k] = j), (value[k++] = v));
    }
  return { rows: M.rows, cols: M.cols, row, col, value };
}

/** The identity of size n as entries. */
export function identityEntries(n: number): MatEntries {
  const idx = Int32Array.from({ length: n }, (_, i) => i);
  return { rows: n, cols: n, row: idx, col: idx, value: new Float64Array(n).fill(1) };
}

/** Aᵀ. */
export function transposeEntries(A: MatEntries): MatEntries {
  return { rows: A.cols, cols: A.rows, row: A.col, col: A.row, value: A.value };
}

/** A ⊗ B (vec row-major: entry (i·B.rows + k, j·B.cols + l) is A_ij·B_kl). */
export function kronEntries(A: MatEntries, B: MatEntries): MatEntries {
  const n = A.value.length * B.value.length;
  const row = new Int32Array(n),
    col = new Int32Array(n),
    value = new Float64Array(n);
  let k = 0;
  for (let a = 0; a < A.value.length; a++)
    for (let b = 0; b < B.value.length; b++, k++) {
      row[k] = A.row[a]! * B.rows + B.row[b]!;
      col[k] = A.col[a]! * B.cols + B.col[b]!;
      value[k] = A.value[a]! * B.value[b]!;
    }
  return { rows: A.rows * B.rows, cols: A.cols * B.cols, row, col, value };
}

/** F(f, b) as entries: the functor's own sparse form when it has one, else its dense matrix's nonzeros. */
export function leftEntries(F: VectDifunctor & Partial<SparseActions>, f: number, b: number): MatEntries {
  return F.leftEntries ? F.leftEntries(f, b) : entriesOf(F.left(f, b));
}

/** F(a, g) as entries. */
export function rightEntries(F: VectDifunctor & Partial<SparseActions>, a: number, g: number): MatEntries {
  return F.rightEntries ? F.rightEntries(a, g) : entriesOf(F.right(a, g));
}
