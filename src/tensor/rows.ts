import type { LossKind } from './backend.js';
import type { Data } from './tensor.js';

/**
 * The row-wise reference kernels of the js backend (Backend.softmax, softmaxBackward,
 * lossGrad, argmaxRows): softmax by log-sum-exp, the losses of nn/loss.ts, and the predicted
 * class of a row.
 */

/** The largest of x[o … o+n−1]. */
export function rowMax(x: ArrayLike<number>, o: number, n: number): number {
  let max = -Infinity;
  for (let j = 0; j < n; j++) if (x[o + j]! > max) max = x[o + j]!;
  return max;
}

/** Σ_j exp(x[o+j] − m) over one row, each term also written to out[o+j] when out is given. */
export function shiftedExpSum(x: ArrayLike<number>, o: number, n: number, m: number, out?: Data): number {
  let s = 0;
  for (let j = 0; j < n; j++) {
    const e = Math.exp(x[o + j]! - m);
    if (out) out[o + j] = e;
    s += e;
  }
  return s;
}

/**
 * Row-wise softmax of a [rows, n] block, by log-sum-exp (stable for large inputs); with `lse`,
 * also each row's log-sum-exp (logSumExpRows's value, from the same pass).
 */
export function softmaxRows(x: Data, rows: number, n: number, out: Data, lse?: Data): void {
  for (let r = 0; r < rows; r++) {
    const o = r * n;
    const max = rowMax(x, o, n);
    const s = shiftedExpSum(x, o, n, max, out);
    for (let j = 0; j < n; j++) out[o + j]! /= s;
    if (lse) lse[r] = max + Math.log(s);
  }
}

/** The softmax pullback dx = y ⊙ (dy − ⟨dy, y⟩), row by row. */
export function softmaxBackwardRows(y: Data, dy: Data, rows: number, n: number, dx: Data): void {
  for (let r = 0; r < rows; r++) {
    const o = r * n;
    let s = 0;
    for (let j = 0; j < n; j++) s += dy[o + j]! * y[o + j]!;
    for (let j = 0; j < n; j++) dx[o + j] = y[o + j]! * (dy[o + j]! - s);
  }
}

/** Binary cross-entropy of logit z against target t, stable for any z: max(z,0) − z·t + log(1 + e^−|z|). */
export function bceTerm(z: number, t: number): number {
  return Math.max(z, 0) - z * t + Math.log1p(Math.exp(-Math.abs(z)));
}

/** σ(z), for either sign of z without overflow. */
export function sigmoidOf(z: number): number {
  return z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z));
}

/** Backend.lossGrad's reference: the mean losses of nn/loss.ts, per row, and their gradient. */
export function lossGradRows(kind: LossKind, yhat: Data, t: Data, rows: number, cols: number, grad: Data, rowLoss: Data): void {
  const n = rows * cols;
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    let s = 0;
    if (kind === 'mse') {
      for (let j = 0; j < cols; j++) {
        const d = yhat[o + j]! - t[o + j]!;
        s += d * d;
        grad[o + j] = (2 * d) / n;
      }
      rowLoss[r] = s / n;
    } else if (kind === 'bce') {
      for (let j = 0; j < cols; j++) {
        s += bceTerm(yhat[o + j]!, t[o + j]!);
        grad[o + j] = (sigmoidOf(yhat[o + j]!) - t[o + j]!) / n;
      }
      rowLoss[r] = s / n;
    } else if (kind === 'token-cross-entropy') {
      // t[r] is the row's class id: L = mean over rows of lse − ŷ[t], dŷ = (softmax(ŷ) − onehot)/rows
      const max = rowMax(yhat, o, cols),
        lse = max + Math.log(shiftedExpSum(yhat, o, cols, max)),
        id = t[r]!;
      for (let j = 0; j < cols; j++) grad[o + j] = (Math.exp(yhat[o + j]! - lse) - (j === id ? 1 : 0)) / rows;
      rowLoss[r] = (lse - yhat[o + id]!) / rows;
    } else {
      const max = rowMax(yhat, o, cols),
        lse = max + Math.log(shiftedExpSum(yhat, o, cols, max));
      let tsum = 0;
      for (let j = 0; j < cols; j++) {
        const tj = t[o + j]!;
        tsum += tj;
        if (tj !== 0) s -= tj * (yhat[o + j]! - lse);
      }
      for (let j = 0; j < cols; j++) grad[o + j] = (Math.exp(yhat[o + j]! - lse) * tsum - t[o + j]!) / rows;
      rowLoss[r] = s / rows;
    }
  }
}

/** Backend.argmaxRows' reference: the first largest entry of each row (NaN never wins); one column: y > threshold. */
export function argmaxRows(y: Data, rows: number, cols: number, threshold: number, out: Data): void {
  for (let r = 0; r < rows; r++) {
    const o = r * cols;
    if (cols === 1) {
      out[r] = y[o]! > threshold ? 1 : 0;
      continue;
    }
    let best = 0;
    for (let c = 1; c < cols; c++) if (y[o + c]! > y[o + best]!) best = c;
    out[r] = best;
  }
}
