import { backend } from '../tensor/registry.js';
import type { Tensor } from '../tensor/tensor.js';
import { normAxis } from './dim.js';
import { defineOp, num } from './op.js';
import type { OpCtx, OpDef } from './op.js';
import { inversePerm, permute } from './strided.js';

/**
 * Softmax and LogSoftmax along one axis (opset 13's semantics, the default the last axis), on
 * the backend's row softmax: an axis that is not the last is permuted there and back.
 * Pullbacks: softmax dx = y ⊙ (dy − ⟨dy, y⟩); log-softmax dx = dy − softmax(x)·Σdy.
 */

/** x with `axis` moved last, and the permutation that did it (undefined when it already was). */
function lastAxis(x: Tensor, axis: number, ctx: OpCtx): { t: Tensor; perm: number[] | undefined } {
  if (axis === x.rank - 1) return { t: x, perm: undefined };
  const perm = [...x.shape.keys()].filter((i) => i !== axis).concat(axis);
  return { t: permute(x, perm, ctx), perm };
}

const home = (t: Tensor, perm: number[] | undefined, ctx: OpCtx): Tensor => (perm ? permute(t, inversePerm(perm), ctx) : t);

function softmaxOp(name: 'Softmax' | 'LogSoftmax'): OpDef {
  const log = name === 'LogSoftmax';
  return defineOp(
    { name, doc: log ? 'y = x − ln Σ eˣ along the axis' : 'y = eˣ / Σ eˣ along the axis', inputs: 1, attrs: { axis: { kind: 'int', default: -1 } } },
    {
      kernelsOnly: false,
      shapes: ([x], a, where) => {
        normAxis(num(a, 'axis'), x!.length, where);
        return [x!];
      },
      forward: ([x], ctx, a, where) => {
        const axis = normAxis(num(a, 'axis'), x!.rank, where);
        const n = x!.shape[axis]!;
        const { t, perm } = lastAxis(x!, axis, ctx);
        const rows = n === 0 ? 0 : t.size / n;
        const be = backend();
        const p = ctx.alloc(t.shape, t.dtype, true);
        be.softmax(t.data, rows, n, p.data);
        let y = p;
        if (log) {
          // ln softmax = x − logsumexp, without the log of an underflowed probability
          y = ctx.alloc(t.shape, t.dtype, true);
          for (let r = 0; r < rows; r++) {
            let m = -Infinity;
            for (let j = 0; j < n; j++) m = Math.max(m, t.data[r * n + j]!);
            let s = 0;
            for (let j = 0; j < n; j++) s += Math.exp(t.data[r * n + j]! - m);
            const lse = m + Math.log(s);
            for (let j = 0; j < n; j++) y.data[r * n + j] = t.data[r * n + j]! - lse;
          }
        }
        return {
          ys: [home(y, perm, ctx)],
          pullback: ([dy], [need]) => {
            if (!dy || !need) return [undefined];
            const g = perm ? permute(dy, perm, ctx) : dy;
            const dx = ctx.alloc(t.shape, t.dtype, true);
            if (!log) be.softmaxBackward(p.data, g.data, rows, n, dx.data);
            else {
              for (let r = 0; r < rows; r++) {
                let s = 0;
                for (let j = 0; j < n; j++) s += g.data[r * n + j]!;
                for (let j = 0; j < n; j++) dx.data[r * n + j] = g.data[r * n + j]! - p.data[r * n + j]! * s;
              }
            }
            return [home(dx, perm, ctx)];
          },
        };
      },
    },
  );
}

export const SOFTMAX_OPS: readonly OpDef[] = [softmaxOp('Softmax'), softmaxOp('LogSoftmax')];
