import type { AdamStep, Backend, SwapOp, UnaryOp } from './backend.js';
import { argmaxRows, lossGradRows, sigmoidOf, softmaxBackwardRows, softmaxRows } from './rows.js';
import { attentionSoftmax, attentionSoftmaxBackward, gatherRows, gemmBatched, rotatePairs, scatterRows } from './attention-kernels.js';
import { layerNorm, layerNormBackward } from './norm-kernels.js';
import { recurrentKernels, sequenceKernels } from './recurrent-kernels.js';
import type { Data } from './tensor.js';
import { avgPool, avgPoolBackward, col2im as col2imSample, im2col as im2colSample, maxPool } from './window.js';
import type { Window } from './window.js';

const KC = 256; // depth of a packed block: a 4-wide strip of it stays in L1

let packA = new Float64Array(4 * KC);
let packB = new Float64Array(0);

/**
 * C = op(A)·op(B) (+C). Small products run a direct loop; larger ones pack op(B) into
 * 4-column strips and op(A) into 4-row strips per depth block, so the transpose is
 * absorbed by the packing, then a 4×4 register-tiled micro-kernel does the arithmetic.
 */
function gemm(
  transA: boolean,
  transB: boolean,
  m: number,
  n: number,
  k: number,
  a: Data,
  b: Data,
  c: Data,
  accumulate: boolean,
  bias?: Data,
  op: UnaryOp = 'identity',
): void {
  product(transA, transB, m, n, k, a, b, c, accumulate);
  if (bias) addRowVector(c, bias, m, n, c, op);
}

function product(transA: boolean, transB: boolean, m: number, n: number, k: number, a: Data, b: Data, c: Data, accumulate: boolean): void {
  const ais = transA ? 1 : k,
    aps = transA ? m : 1;
  const bps = transB ? 1 : n,
    bjs = transB ? k : 1;
  if (!accumulate) c.fill(0, 0, m * n);
  if (m * n * k <= 4096 || m < 4 || n < 4) {
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = 0;
        for (let p = 0; p < k; p++) s += a[i * ais + p * aps]! * b[p * bps + j * bjs]!;
        c[i * n + j]! += s;
      }
    }
    return;
  }
  const nStrips = (n + 3) >> 2;
  if (packB.length < nStrips * 4 * KC) packB = new Float64Array(nStrips * 4 * KC);
  for (let p0 = 0; p0 < k; p0 += KC) {
    const kc = Math.min(KC, k - p0);
    // pack op(B)[p0:p0+kc, :] into strips of 4 columns, zero-padded
    for (let s = 0; s < nStrips; s++) {
      const base = s * 4 * kc;
      for (let jj = 0; jj < 4; jj++) {
        const j = s * 4 + jj;
        if (j < n) {
          for (let p = 0; p < kc; p++) packB[base + p * 4 + jj] = b[(p0 + p) * bps + j * bjs]!;
        } else {
          for (let p = 0; p < kc; p++) packB[base + p * 4 + jj] = 0;
        }
      }
    }
    for (let i0 = 0; i0 < m; i0 += 4) {
      const mr = Math.min(4, m - i0);
      for (let ii = 0; ii < 4; ii++) {
        if (ii < mr) {
          const row = (i0 + ii) * ais;
          for (let p = 0; p < kc; p++) packA[p * 4 + ii] = a[row + (p0 + p) * aps]!;
        } else {
          for (let p = 0; p < kc; p++) packA[p * 4 + ii] = 0;
        }
      }
      for (let s = 0; s < nStrips; s++) microKernel(kc, packA, packB, s * 4 * kc, c, i0, s * 4, mr, Math.min(4, n - s * 4), n);
    }
  }
}

function microKernel(kc: number, pa: Float64Array, pb: Float64Array, bOff: number, c: Data, i0: number, j0: number, mr: number, nr: number, ldc: number): void {
  let c00 = 0,
    c01 = 0,
    c02 = 0,
    c03 = 0,
    c10 = 0,
    c11 = 0,
    c12 = 0,
    c13 = 0;
  let c20 = 0,
    c21 = 0,
    c22 = 0,
    c23 = 0,
    c30 = 0,
    c31 = 0,
    c32 = 0,
    c33 = 0;
  for (let p = 0; p < kc; p++) {
    const ap = p * 4,
      bp = bOff + p * 4;
    const a0 = pa[ap]!,
      a1 = pa[ap + 1]!,
      a2 = pa[ap + 2]!,
      a3 = pa[ap + 3]!;
    const b0 = pb[bp]!,
      b1 = pb[bp + 1]!,
      b2 = pb[bp + 2]!,
      b3 = pb[bp + 3]!;
    c00 += a0 * b0;
    c01 += a0 * b1;
    c02 += a0 * b2;
    c03 += a0 * b3;
    c10 += a1 * b0;
    c11 += a1 * b1;
    c12 += a1 * b2;
    c13 += a1 * b3;
    c20 += a2 * b0;
    c21 += a2 * b1;
    c22 += a2 * b2;
    c23 += a2 * b3;
    c30 += a3 * b0;
    c31 += a3 * b1;
    c32 += a3 * b2;
    c33 += a3 * b3;
  }
  const acc = [c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33];
  if (mr === 4 && nr === 4) {
    let o = i0 * ldc + j0;
    c[o]! += c00;
    c[o + 1]! += c01;
    c[o + 2]! += c02;
    c[o + 3]! += c03;
    o += ldc;
    c[o]! += c10;
    c[o + 1]! += c11;
    c[o + 2]! += c12;
    c[o + 3]! += c13;
    o += ldc;
    c[o]! += c20;
    c[o + 1]! += c21;
    c[o + 2]! += c22;
    c[o + 3]! += c23;
    o += ldc;
    c[o]! += c30;
    c[o + 1]! += c31;
    c[o + 2]! += c32;
    c[o + 3]! += c33;
    return;
  }
  for (let ii = 0; ii < mr; ii++) for (let jj = 0; jj < nr; jj++) c[(i0 + ii) * ldc + j0 + jj]! += acc[ii * 4 + jj]!;
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

/** f(x), the scalar definition every backend must match. GELU is the tanh approximation (PyTorch's approximate='tanh'). */
export function applyUnary(op: UnaryOp, x: number): number {
  switch (op) {
    case 'identity':
      return x;
    case 'sigmoid':
      return sigmoidOf(x);
    case 'tanh':
      return Math.tanh(x);
    case 'relu':
      return x > 0 ? x : 0;
    case 'gelu':
      return 0.5 * x * (1 + Math.tanh(SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)));
    case 'softplus':
      return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
    case 'exp':
      return Math.exp(x);
    case 'neg':
      return -x;
    case 'square':
      return x * x;
  }
}

/** f′(x) given x and y = f(x). */
export function unaryDerivative(op: UnaryOp, x: number, y: number): number {
  switch (op) {
    case 'identity':
      return 1;
    case 'sigmoid':
      return y * (1 - y);
    case 'tanh':
      return 1 - y * y;
    case 'relu':
      return x > 0 ? 1 : 0;
    case 'gelu': {
      const u = SQRT_2_OVER_PI * (x + 0.044715 * x * x * x);
      const t = Math.tanh(u);
      return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * SQRT_2_OVER_PI * (1 + 3 * 0.044715 * x * x);
    }
    case 'softplus':
      return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
    case 'exp':
      return y;
    case 'neg':
      return -1;
    case 'square':
      return 2 * x;
  }
}

function unary(op: UnaryOp, x: Data, out: Data): void {
  const n = x.length;
  switch (op) {
    case 'identity':
      if (out !== x) out.set(x);
      return;
    case 'relu':
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        out[i] = v > 0 ? v : 0;
      }
      return;
    default:
      for (let i = 0; i < n; i++) out[i] = applyUnary(op, x[i]!);
  }
}

function unaryBackward(op: UnaryOp, x: Data, y: Data, dy: Data, dx: Data, accumulate: boolean): void {
  const n = dy.length;
  if (op === 'relu') {
    if (accumulate) for (let i = 0; i < n; i++) dx[i]! += x[i]! > 0 ? dy[i]! : 0;
    else for (let i = 0; i < n; i++) dx[i] = x[i]! > 0 ? dy[i]! : 0;
    return;
  }
  if (op === 'sigmoid') {
    for (let i = 0; i < n; i++) {
      const s = y[i]!;
      const g = dy[i]! * s * (1 - s);
      dx[i] = accumulate ? dx[i]! + g : g;
    }
    return;
  }
  for (let i = 0; i < n; i++) {
    const g = dy[i]! * unaryDerivative(op, x[i]!, y[i]!);
    dx[i] = accumulate ? dx[i]! + g : g;
  }
}

function addRowVector(x: Data, v: Data, rows: number, cols: number, out: Data, op: UnaryOp): void {
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let j = 0; j < cols; j++) out[o + j] = x[o + j]! + v[j]!;
  }
  if (op !== 'identity') unary(op, out.subarray(0, rows * cols), out.subarray(0, rows * cols));
}

function sumRows(x: Data, rows: number, cols: number, out: Data, accumulate: boolean): void {
  if (!accumulate) out.fill(0, 0, cols);
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    for (let j = 0; j < cols; j++) out[j]! += x[o + j]!;
  }
}

function axpy(alpha: number, x: Data, y: Data): void {
  for (let i = 0; i < x.length; i++) y[i]! += alpha * x[i]!;
}

function allFinite(x: Data): boolean {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i]!)) return false;
  return true;
}

function adam(p: Data, g: Data, m: Data, v: Data, h: AdamStep): void {
  const { b1, b2, step, epsHat, l2, shrink } = h,
    a1 = 1 - b1,
    a2 = 1 - b2;
  for (let j = 0; j < p.length; j++) {
    if (shrink !== 1) p[j]! *= shrink;
    const gj = l2 ? g[j]! + l2 * p[j]! : g[j]!;
    const mj = b1 * m[j]! + a1 * gj;
    const vj = b2 * v[j]! + a2 * gj * gj;
    m[j] = mj;
    v[j] = vj;
    p[j]! -= (step * mj) / (Math.sqrt(vj) + epsHat);
  }
}

function im2col(g: Window, x: Data, xOff: number, count: number, col: Data, ld: number): void {
  const S = g.C * g.H * g.W,
    P = g.Ho * g.Wo;
  for (let s = 0; s < count; s++) im2colSample(g, x, xOff + s * S, col, ld, s * P);
}

function col2im(g: Window, col: Data, ld: number, count: number, dx: Data, xOff: number): void {
  const S = g.C * g.H * g.W,
    P = g.Ho * g.Wo;
  for (let s = 0; s < count; s++) col2imSample(g, col, ld, s * P, dx, xOff + s * S);
}

function scatterAdd(dy: Data, arg: Data, dx: Data): void {
  for (let i = 0; i < dy.length; i++) dx[arg[i]!]! += dy[i]!;
}

function swapAxes(x: Data, A: number, B: number, P: number, y: Data, bias?: Data, op: SwapOp = 'identity'): void {
  for (let a = 0; a < A; a++) {
    const ba = bias ? bias[a]! : 0;
    for (let b = 0; b < B; b++) {
      const src = (a * B + b) * P,
        dst = (b * A + a) * P;
      if (!bias) y.set(x.subarray(src, src + P), dst);
      else for (let p = 0; p < P; p++) y[dst + p] = x[src + p]! + ba;
    }
  }
  if (op !== 'identity') unary(op, y.subarray(0, A * B * P), y.subarray(0, A * B * P));
}

function fill(x: Data, value: number): void {
  x.fill(value);
}

function copyRows(rows: number, cols: number, src: Data, ldSrc: number, dst: Data, ldDst: number): void {
  for (let r = 0; r < rows; r++) dst.set(src.subarray(r * ldSrc, r * ldSrc + cols), r * ldDst);
}

function softmax(x: Data, rows: number, n: number, y: Data): void {
  softmaxRows(x, rows, n, y);
}

/** The reference backend: plain TypeScript, any typed array, runs everywhere. */
export const jsBackend: Backend = {
  name: 'js',
  gemm,
  gemmBatched,
  attentionSoftmax,
  attentionSoftmaxBackward,
  rotatePairs,
  gatherRows,
  scatterRows,
  layerNorm,
  layerNormBackward,
  unary,
  unaryBackward,
  addRowVector,
  sumRows,
  axpy,
  allFinite,
  adam,
  im2col,
  col2im,
  maxPool,
  scatterAdd,
  swapAxes,
  fill,
  copyRows,
  softmax,
  softmaxBackward: softmaxBackwardRows,
  lossGrad: lossGradRows,
  argmaxRows,
  avgPool,
  avgPoolBackward,
  ...recurrentKernels,
  ...sequenceKernels(() => jsBackend),
};
