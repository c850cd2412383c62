import { RangeArgError } from '../errors.js';
import type { Mat } from './matrix.js';

/**
 * Compressed sparse row matrices: representation matrices of tensor powers are Kronecker
 * products of small matrices and stay sparse (a permutation stays a permutation, a Lie
 * generator of SO(3) on T(k) has at most 2k nonzeros a row), so the constraints of the
 * end solver are built and applied without ever forming dense (dim × dim) operators.
 */
export interface Sparse {
  readonly rows: number;
  readonly cols: number;
  readonly rowPtr: Int32Array;
  readonly colIdx: Int32Array;
  readonly vals: Float64Array;
}

/** From (row, col, value) triples; duplicates are summed, zeros dropped. */
export function fromTriples(rows: number, cols: number, r: ArrayLike<number>, c: ArrayLike<number>, v: ArrayLike<number>): Sparse {
  const perRow: Map<number, number>[] = Array.from({ length: rows }, () => new Map());
  for (let i = 0; i < v.length; i++) {
    const m = perRow[r[i]!]!;
    m.set(c[i]!, (m.get(c[i]!) ?? 0) + v[i]!);
  }
  const rowPtr = new Int32Array(rows + 1);
  const ci: number[] = [],
    vs: number[] = [];
  perRow.forEach((m, i) => {
    for (const [col, val] of [...m.entries()].sort((a, b) => a[0] - b[0])) {
      if (val !== 0) {
        ci.push(col);
        vs.push(val);
      }
    }
    rowPtr[i + 1] = ci.length;
  });
  return { rows, cols, rowPtr, colIdx: Int32Array.from(ci), vals: Float64Array.from(vs) };
}

/** CSR from (row, col, value) triples without duplicates, by counting sort on rows (linear time). */
export function csrFromUniqueTriples(rows: number, cols: number, r: Int32Array, c: Int32Array, v: Float64Array): Sparse {
  const rowPtr = new Int32Array(rows + 1);
  for (let i = 0; i < r.length; i++) {
    const row = r[i]!;
    // a row outside [0, rows) would fall off the counting array and corrupt every later row
    if (!(row >= 0 && row < rows)) throw new RangeArgError(`csrFromUniqueTriples: triple ${i} has row ${row}, expected 0 ≤ row < ${rows}`);
    rowPtr[row + 1]!++;
  }
  for (let i = 0; i < rows; i++) rowPtr[i + 1]! += rowPtr[i]!;
  const next = rowPtr.slice(0, rows);
  const colIdx = new Int32Array(r.length),
    vals = new Float64Array(r.length);
  for (let i = 0; i < r.length; i++) {
    const k = next[r[i]!]!++;
    colIdx[k] = c[i]!;
    vals[k] = v[i]!;
  }
  return { rows, cols, rowPtr, colIdx, vals };
}

export function sparseFromDense(m: Mat, tol = 0): Sparse {
  const r: number[] = [],
    c: number[] = [],
    v: number[] = [];
  for (let i = 0; i < m.rows; i++)
    for (let j = 0; j < m.cols; j++) {
      const x = m.data[i * m.cols + j]!;
      if (Math.abs(x) > tol) {
        r.push(i);
        c.push(j);
        v.push(x);
      }
    }
  return fromTriples(m.rows, m.cols, r, c, v);
}

export function sparseEye(n: number): Sparse {
  return {
    rows: n,
    cols: n,
    rowPtr: Int32Array.from({ length: n + 1 }, (_, i) => i),
    colIdx: Int32Array.from({ length: n }, (_, i) => i),
    vals: new Float64Array(n).fill(1),
  };
}

export function nnz(s: Sparse): number {
  return s.vals.length;
}

/** Kronecker product of sparse matrices (row-major index convention as `kron`). */
export function sparseKron(a: Sparse, b: Sparse): Sparse {
  const rows = a.rows * b.rows,
    cols = a.cols * b.cols;
  const rowPtr = new Int32Array(rows + 1);
  const n = nnz(a) * nnz(b);
  const colIdx = new Int32Array(n),
    vals = new Float64Array(n);
  let k = 0;
  for (let i = 0; i < a.rows; i++)
    for (let p = 0; p < b.rows; p++) {
      for (let x = a.rowPtr[i]!; x < a.rowPtr[i + 1]!; x++)
        for (let y = b.rowPtr[p]!; y < b.rowPtr[p + 1]!; y++) {
          colIdx[k] = a.colIdx[x]! * b.cols + b.colIdx[y]!;
          vals[k++] = a.vals[x]! * b.vals[y]!;
        }
      rowPtr[i * b.rows + p + 1] = k;
    }
  return { rows, cols, rowPtr, colIdx, vals };
}

export function sparseTranspose(a: Sparse): Sparse {
  const r: number[] = [],
    c: number[] = [],
    v: number[] = [];
  for (let i = 0; i < a.rows; i++)
    for (let x = a.rowPtr[i]!; x < a.rowPtr[i + 1]!; x++) {
      r.push(a.colIdx[x]!);
      c.push(i);
      v.push(a.vals[x]!);
    }
  return fromTriples(a.cols, a.rows, r, c, v);
}

/** Σ_k s_k·A_k for matrices of one shape. */
export function sparseLinComb(terms: readonly { s: number; m: Sparse }[]): Sparse {
  const { rows, cols } = terms[0]!.m;
  const r: number[] = [],
    c: number[] = [],
    v: number[] = [];
  for (const { s, m } of terms)
    for (let i = 0; i < m.rows; i++)
      for (let x = m.rowPtr[i]!; x < m.rowPtr[i + 1]!; x++) {
        r.push(i);
        c.push(m.colIdx[x]!);
        v.push(s * m.vals[x]!);
      }
  return fromTriples(rows, cols, r, c, v);
}

/** out (rows×k) = S · W for dense row-major W (cols×k), accumulating when `acc`. */
export function spmmLeft(s: Sparse, w: Float64Array, k: number, out: Float64Array, alpha = 1, acc = false): void {
  if (!acc) out.fill(0);
  for (let i = 0; i < s.rows; i++)
    for (let x = s.rowPtr[i]!; x < s.rowPtr[i + 1]!; x++) {
      const v = alpha * s.vals[x]!,
        j = s.colIdx[x]!;
      for (let t = 0; t < k; t++) out[i * k + t]! += v * w[j * k + t]!;
    }
}

/** out (m×cols) = W · S for dense row-major W (m×rows), accumulating when `acc`. */
export function spmmRight(w: Float64Array, m: number, s: Sparse, out: Float64Array, alpha = 1, acc = false): void {
  if (!acc) out.fill(0);
  const R = s.rows,
    C = s.cols;
  for (let i = 0; i < m; i++)
    for (let p = 0; p < R; p++) {
      const wv = alpha * w[i * R + p]!;
      if (wv === 0) continue;
      for (let x = s.rowPtr[p]!; x < s.rowPtr[p + 1]!; x++) out[i * C + s.colIdx[x]!]! += wv * s.vals[x]!;
    }
}

/** Dense copy. */
export function sparseToDense(s: Sparse): Mat {
  const data = new Float64Array(s.rows * s.cols);
  for (let i = 0; i < s.rows; i++) for (let x = s.rowPtr[i]!; x < s.rowPtr[i + 1]!; x++) data[i * s.cols + s.colIdx[x]!]! += s.vals[x]!;
  return { rows: s.rows, cols: s.cols, data };
}
