/**
 * Small dense float64 matrices (row-major) for group elements and representation
 * matrices: products, Kronecker products, inverses and the matrix exponential that turns
 * Lie-algebra generators into group elements.
 */
export interface Mat {
  readonly rows: number;
  readonly cols: number;
  readonly data: Float64Array;
}

export function mat(rows: number, cols: number, data?: ArrayLike<number>): Mat {
  const d = new Float64Array(rows * cols);
  if (data) d.set(data);
  return { rows, cols, data: d };
}

export function eye(n: number): Mat {
  const m = mat(n, n);
  for (let i = 0; i < n; i++) m.data[i * n + i] = 1;
  return m;
}

/** From nested rows: `fromRows([[0,-1],[1,0]])`. */
export function fromRows(rows: readonly (readonly number[])[]): Mat {
  return mat(rows.length, rows[0]?.length ?? 0, rows.flat());
}

export function matmul(a: Mat, b: Mat): Mat {
  const out = mat(a.rows, b.cols);
  const { data: A } = a,
    { data: B } = b,
    C = out.data,
    n = b.cols,
    k = a.cols;
  for (let i = 0; i < a.rows; i++) {
    for (let p = 0; p < k; p++) {
      const v = A[i * k + p]!;
      if (v === 0) continue;
      for (let j = 0; j < n; j++) C[i * n + j]! += v * B[p * n + j]!;
    }
  }
  return out;
}

export function transpose(a: Mat): Mat {
  const out = mat(a.cols, a.rows);
  for (let i = 0; i < a.rows; i++) for (let j = 0; j < a.cols; j++) out.data[j * a.rows + i] = a.data[i * a.cols + j]!;
  return out;
}

export function scale(a: Mat, s: number): Mat {
  return mat(
    a.rows,
    a.cols,
    a.data.map((v) => v * s),
  );
}

export function addMat(a: Mat, b: Mat, s = 1): Mat {
  return mat(
    a.rows,
    a.cols,
    a.data.map((v, i) => v + s * b.data[i]!),
  );
}

/** Kronecker product A ⊗ B: (A⊗B)[(i·p + k), (j·q + l)] = A[i,j]·B[k,l]. */
export function kron(a: Mat, b: Mat): Mat {
  const out = mat(a.rows * b.rows, a.cols * b.cols);
  const W = a.cols * b.cols;
  for (let i = 0; i < a.rows; i++)
    for (let j = 0; j < a.cols; j++) {
      const v = a.data[i * a.cols + j]!;
      if (v === 0) continue;
      for (let k = 0; k < b.rows; k++) for (let l = 0; l < b.cols; l++) out.data[(i * b.rows + k) * W + j * b.cols + l] = v * b.data[k * b.cols + l]!;
    }
  return out;
}

/** Block-diagonal direct sum A ⊕ B. */
export function directSum(ms: readonly Mat[]): Mat {
  const r = ms.reduce((s, m) => s + m.rows, 0),
    c = ms.reduce((s, m) => s + m.cols, 0);
  const out = mat(r, c);
  let oi = 0,
    oj = 0;
  for (const m of ms) {
    for (let i = 0; i < m.rows; i++) out.data.set(m.data.subarray(i * m.cols, (i + 1) * m.cols), (oi + i) * c + oj);
    oi += m.rows;
    oj += m.cols;
  }
  return out;
}

export function frobenius(a: Mat | Float64Array): number {
  const d = 'data' in a ? a.data : a;
  let s = 0;
  for (let i = 0; i < d.length; i++) s += d[i]! * d[i]!;
  return Math.sqrt(s);
}

/** Inverse by Gauss–Jordan elimination with partial pivoting (throws on a singular matrix). */
export function inverse(a: Mat): Mat {
  const n = a.rows;
  const A = Float64Array.from(a.data),
    I = eye(n).data;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(A[r * n + c]!) > Math.abs(A[p * n + c]!)) p = r;
    if (Math.abs(A[p * n + c]!) < 1e-14) throw new Error('inverse: singular matrix');
    for (const M of [A, I]) for (let j = 0; j < n; j++) [M[c * n + j], M[p * n + j]] = [M[p * n + j]!, M[c * n + j]!];
    const piv = A[c * n + c]!;
    for (let j = 0; j < n; j++) {
      A[c * n + j]! /= piv;
      I[c * n + j]! /= piv;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = A[r * n + c]!;
      if (f === 0) continue;
      for (let j = 0; j < n; j++) {
        A[r * n + j]! -= f * A[c * n + j]!;
        I[r * n + j]! -= f * I[c * n + j]!;
      }
    }
  }
  return { rows: n, cols: n, data: I };
}

/** The matrix exponential e^A by scaling and squaring with a degree-18 Taylor polynomial. */
export function expm(a: Mat): Mat {
  const norm = frobenius(a);
  const s = norm > 0.5 ? Math.ceil(Math.log2(norm / 0.5)) : 0;
  const A = scale(a, 1 / 2 ** s);
  let term = eye(a.rows);
  let sum = eye(a.rows);
  for (let k = 1; k <= 18; k++) {
    term = scale(matmul(term, A), 1 / k);
    sum = addMat(sum, term);
  }
  for (let i = 0; i < s; i++) sum = matmul(sum, sum);
  return sum;
}

/** The matrix of a permutation σ in the convention ρ(σ)e_i = e_σ(i): P[σ(i), i] = 1. */
export function permMatrix(sigma: ArrayLike<number>): Mat {
  const n = sigma.length;
  const m = mat(n, n);
  for (let i = 0; i < n; i++) m.data[sigma[i]! * n + i] = 1;
  return m;
}
