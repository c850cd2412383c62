import { ShapeError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import type { Ctx, Para, ParamSpec } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Cell } from './cell.js';
import { checkSequence } from './frame.js';
import { describeRecurrent } from './known.js';
import type { Naming } from './layers.js';
import { sequenceDomain } from './layers.js';
import { regimeOf } from './regime.js';

/** x [N, T, n] with its steps in reverse order. */
function reversed(x: Tensor, ctx: Ctx): Tensor {
  const [N, T, n] = x.shape as [number, number, number];
  const y = ctx.alloc(x.shape, x.dtype, true);
  for (let t = 0; t < T; t++) backend().copyRows(N, n, x.data.subarray(t * n), T * n, y.data.subarray((T - 1 - t) * n), T * n);
  return y;
}

/** The parameter names of the backward direction: PyTorch's `_reverse` after a layer's `_l0`, else `reverse.name`. */
export function reverseName(name: string): string {
  return name.endsWith('_l0') ? `${name}_reverse` : `reverse.${name}`;
}

/**
 * bidirectional(c): [T, A] → [T, 2B], the scan of c forwards and the scan of a second copy of c
 * (its own parameters) backwards in time, their outputs side by side at each step — nn.LSTM's
 * bidirectional=True, defined once for any cell: scan(c) ⊗ (rev ; scan(c′) ; rev) after copying
 * the sequence, concatenated along the features. Parameters: c's, then c′'s (`…_reverse`).
 * Not causal, so not decodable step by step; both directions start from zero states.
 */
export function bidirectional(cell: Cell, naming: Naming, T?: number): Para {
  const { input: A, output: B } = cell;
  const where = `bidirectional(${naming.args.join(',')})`;
  const k = cell.params.length;
  const params: ParamSpec[] = [...cell.params, ...cell.params.map((p) => ({ ...p, name: reverseName(p.name) }))];
  const self = primitive({
    kind: 'bidirectional',
    args: naming.args,
    dom: T === undefined ? undefined : [T, A],
    cod: T === undefined ? undefined : [T, 2 * B],
    params,
    at: (dom) => bidirectional(cell, naming, sequenceDomain(where, dom, A)),
    forward: (theta, x, ctx) => {
      checkSequence(where, x, A);
      if (T !== undefined && x.shape[1] !== T) throw new ShapeError(`${where} expects [*,${T},${A}] but got [${x.shape.join(',')}]`);
      const N = x.batch,
        L = x.shape[1]!,
        be = backend();
      const bptt = regimeOf(ctx)?.bptt;
      const fwd = cell.run(theta.slice(0, k), x, undefined, ctx, bptt);
      const bwd = cell.run(theta.slice(k), reversed(x, ctx), undefined, ctx, bptt);
      const yb = reversed(bwd.y, ctx);
      const y = ctx.alloc([N, L, 2 * B], x.dtype, true);
      be.copyRows(N * L, B, fwd.y.data, B, y.data, 2 * B);
      be.copyRows(N * L, B, yb.data, B, y.data.subarray(B), 2 * B);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const df = ctx.alloc([N, L, B], x.dtype, true),
            dbr = ctx.alloc([N, L, B], x.dtype, true);
          be.copyRows(N * L, B, dy.data, 2 * B, df.data, B);
          be.copyRows(N * L, B, dy.data.subarray(B), 2 * B, dbr.data, B);
          const dxf = fwd.pullback(df, null, dTheta && dTheta.slice(0, k), needDx).dx;
          const dxb = bwd.pullback(reversed(dbr, ctx), null, dTheta && dTheta.slice(k), needDx).dx;
          if (needDx) be.axpy(1, reversed(dxb, ctx).data, dxf.data);
          return dxf;
        },
      };
    },
  });
  return describeRecurrent(self, { role: 'bidirectional', cell, layer: naming.layer, reverse: cell });
}
