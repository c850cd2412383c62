import type { MatrixBatch, Rotation } from './backend.js';
import type { Data } from './tensor.js';

/**
 * The reference attention kernels (Backend.gemmBatched, attentionSoftmax,
 * attentionSoftmaxBackward, rotatePairs, and the embedding's gatherRows, scatterRows): plain
 * loops, any typed array. The wasm backend must agree with them within float32 tolerance.
 */

export function gemmBatched(
  transA: boolean,
  transB: boolean,
  m: number,
  n: number,
  k: number,
  a: MatrixBatch,
  b: MatrixBatch,
  c: MatrixBatch,
  count: readonly [number, number],
  accumulate: boolean,
): void {
  const A = a.data,
    Bd = b.data,
    C = c.data;
  // op(A)(i,p) = A[i·lda + p] or A[p·lda + i]; op(B)(p,j) likewise
  const ai = transA ? 1 : a.ld,
    ap = transA ? a.ld : 1;
  const bp = transB ? 1 : b.ld,
    bj = transB ? b.ld : 1;
  for (let o = 0; o < count[0]; o++) {
    for (let h = 0; h < count[1]; h++) {
      const a0 = o * a.outer + h * a.inner,
        b0 = o * b.outer + h * b.inner,
        c0 = o * c.outer + h * c.inner;
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let p = 0; p < k; p++) s += A[a0 + i * ai + p * ap]! * Bd[b0 + p * bp + j * bj]!;
          const at = c0 + i * c.ld + j;
          C[at] = accumulate ? C[at]! + s : s;
        }
      }
    }
  }
}

export function attentionSoftmax(
  s: Data,
  blocks: number,
  Tq: number,
  Tk: number,
  scale: number,
  causal: boolean,
  qOffset: number,
  bias?: Data,
  heads = 1,
): void {
  for (let blk = 0; blk < blocks; blk++) {
    const bOff = bias ? (blk % heads) * Tq * Tk : 0;
    for (let i = 0; i < Tq; i++) {
      const o = (blk * Tq + i) * Tk;
      const seen = causal ? Math.max(0, Math.min(Tk, i + qOffset + 1)) : Tk;
      let max = -Infinity;
      for (let j = 0; j < seen; j++) {
        const v = scale * s[o + j]! + (bias ? bias[bOff + i * Tk + j]! : 0);
        s[o + j] = v;
        if (v > max) max = v;
      }
      let z = 0;
      for (let j = 0; j < seen; j++) z += s[o + j] = Math.exp(s[o + j]! - max);
      for (let j = 0; j < seen; j++) s[o + j]! /= z;
      s.fill(0, o + seen, o + Tk);
    }
  }
}

export function attentionSoftmaxBackward(p: Data, dp: Data, rows: number, n: number, scale: number): void {
  for (let r = 0; r < rows; r++) {
    const o = r * n;
    let dot = 0;
    for (let j = 0; j < n; j++) dot += dp[o + j]! * p[o + j]!;
    for (let j = 0; j < n; j++) dp[o + j] = scale * p[o + j]! * (dp[o + j]! - dot);
  }
}

export function rotatePairs(x: Data, count: number, d: number, r: Rotation, groups: number, inverse: boolean): void {
  const { T, half, cos, sin } = r;
  const sgn = inverse ? -1 : 1;
  for (let s = 0; s < count; s++) {
    for (let t = 0; t < T; t++) {
      const row = (s * T + t) * d,
        tab = t * half;
      for (let g = 0; g < groups; g++) {
        const o = row + 2 * g * half;
        for (let i = 0; i < half; i++) {
          const c = cos[tab + i]!,
            sn = sgn * sin[tab + i]!;
          const a = x[o + 2 * i]!,
            b = x[o + 2 * i + 1]!;
          x[o + 2 * i] = a * c - b * sn;
          x[o + 2 * i + 1] = a * sn + b * c;
        }
      }
    }
  }
}

export function gatherRows(ids: Data, table: Data, d: number, y: Data): void {
  for (let i = 0; i < ids.length; i++) y.set(table.subarray(ids[i]! * d, (ids[i]! + 1) * d), i * d);
}

export function scatterRows(dy: Data, ids: Data, d: number, dTable: Data): void {
  for (let i = 0; i < ids.length; i++) {
    const o = ids[i]! * d;
    for (let j = 0; j < d; j++) dTable[o + j]! += dy[i * d + j]!;
  }
}
