import { primitive } from '../para/composite.js';
import type { Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import { rowMax, shiftedExpSum } from '../tensor/rows.js';
import type { Data, Shape } from '../tensor/tensor.js';
import { sizeArgs } from './activation.js';

export { softmaxRows } from '../tensor/rows.js';

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
      const y = ctx.alloc(x.shape, x.dtype, true);
      backend().softmax(x.data, rows, n, y.data);
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype, true);
          backend().softmaxBackward(y.data, dy.data, rows, n, dx.data);
          return dx;
        },
      };
    },
  });
}
