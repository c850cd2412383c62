import { RangeArgError, ShapeError } from '../../errors.js';
import { joinRows, primitive, splitRows } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Cell, CellRun } from './cell.js';
import { checkActivations } from './frame.js';
import { describeRecurrent } from './known.js';

/**
 * unfold(c, T): S ⊗ A → B^T, the anamorphism — generation from a state. The coalgebra is the
 * cell with its output fed back as its next input, (s, a) ↦ ((s′, b), b) where (s′, b) = c(s, a),
 * so c must output what it reads (B = A); a cell without input (A = 0) is a coalgebra s ↦ (s′, b)
 * as it is. Iterated T times from the given state and first input: [S + A] → [T, B]. Its
 * pullback is the reverse composite of the T steps', the gradient of each fed-back output
 * joining its own. (`paralens generate` is the same unfold with a sampled token fed back: a
 * stochastic coalgebra, src/train/generate.ts.)
 */
export function unfold(cell: Cell, T: number): Para {
  const { state: S, input: A, output: B } = cell;
  const where = `unfold(${cell},${T})`;
  if (!(Number.isInteger(T) && T >= 1)) throw new RangeArgError(`${where}: the number of steps must be a positive integer, got ${T}`);
  if (A !== 0 && A !== B)
    throw new ShapeError(`${where}: the cell's output (${B}) is fed back as its next input (${A}), so they must be equal (or the input empty)`);
  const self: Para = primitive({
    kind: 'unfold',
    args: [String(cell), T],
    dom: [S + A],
    cod: [T, B],
    params: cell.params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const N = x.batch;
      // T one-step runs, each keeping its state, input and output and the cell's activations
      checkActivations(where, N, T, 4 * (S + A + B));
      const [s0, a0] = splitRows(x, [S, A], [[S], [A]], ctx);
      const runs: CellRun[] = [];
      let s: Tensor = s0!,
        a: Tensor = a0!.reshape([N, 1, A]);
      for (let t = 0; t < T; t++) {
        const r = cell.run(theta, a, s, ctx);
        runs.push(r);
        s = r.s;
        if (A > 0) a = r.y;
      }
      const y = joinRows(
        runs.map((r) => r.y.reshape([N, B])),
        N,
        ctx,
      ).reshape([N, T, B]);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dys = splitRows(
            dy.reshape([N, T * B]),
            runs.map(() => B),
            runs.map(() => [B]),
            ctx,
          );
          let ds: Tensor | null = null,
            da: Tensor | null = null;
          for (let t = T - 1; t >= 0; t--) {
            const d = dys[t]!;
            // the output fed back as the next input gets that input's gradient too
            if (da && A > 0) backend().axpy(1, da.data, d.data);
            const back = runs[t]!.pullback(d.reshape([N, 1, B]), ds, dTheta, true);
            ds = back.ds0;
            da = back.dx;
          }
          return needDx ? joinRows([ds!, da!.reshape([N, A])], N, ctx) : ctx.alloc(x.shape, x.dtype);
        },
      };
    },
  });
  return describeRecurrent(self, { role: 'unfold', cell, steps: T });
}
