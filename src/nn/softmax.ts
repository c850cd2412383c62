import { primitive } from '../para/category.js';
import type { Para } from '../para/para.js';
import type { Data, Shape } from '../tensor/tensor.js';
import { sizeArgs } from './activation.js';

/** The largest of x[o … o+n−1]. */
function rowMax(x: ArrayLike<number>, o: number, n: number): number {
  let max = -Infinity;
  for (let j = 0; j < n; j++) if (x[o + j]! > max) max = x[o + j]!;
  return max;
}

/** Σ_j exp(x[o+j] − m) over one row, each term also written to out[o+j] when out is given. */
function shiftedExpSum(x: ArrayLike<number>, o: number, n: number, m: number, out?: Data): number {
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
    for (let j = 0; j < n; j++) out[o + j] /= s;
    if (lse) lse[r] = max + Math.log(s);
  }
}

/**
 * Row-wise log-sum-exp of a [rows, n] block: out[r] = m + log Σ_j exp(x[r,j] − m), m = max_j x[r,j]
 * (subtracting the maximum keeps exp from overflowing). log softmax(x)_j = x_j − out[r].
 */
export function logSumExpRows(x: ArrayLike<number>, rows: number, n: number, out: Data | number[]): void {
  for (let r = 0; r < rows; r++) {
    const max = rowMax(x, r * n, n);
    out[r] = max + Math.log(shiftedExpSum(x, r * n, n, max));
  }
}

/** softmax over the last axis; pullback dx = y ⊙ (dy − ⟨dy, y⟩). */
export function softmax(dom?: Shape, inferred = false): Para {
  return primitive({
    kind: 'softmax',
    args: sizeArgs(dom, inferred),
    dom,
    cod: dom,
    at: (d) => softmax(d, true),
    positionwise: true,
    forward: (_t, x, ctx) => {
      const n = x.shape[x.rank - 1]!;
      const rows = x.size / n;
      const y = ctx.alloc(x.shape, x.dtype);
      softmaxRows(x.data, rows, n, y.data);
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          for (let r = 0; r < rows; r++) {
            const o = r * n;
            let s = 0;
            for (let j = 0; j < n; j++) s += dy.data[o + j]! * y.data[o + j]!;
            for (let j = 0; j < n; j++) dx.data[o + j] = y.data[o + j]! * (dy.data[o + j]! - s);
          }
          return dx;
        },
      };
    },
  });
}
