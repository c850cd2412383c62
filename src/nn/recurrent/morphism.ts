import { formatCount, ShapeError, TooLargeError } from '../../errors.js';
import { joinRows, primitive, splitRows } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Ctx, Para } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import { cellString } from './cell.js';
import type { Cell, CellRun } from './cell.js';
import { checkSequence, checkState } from './frame.js';
import { unrolled } from './unroll.js';

/**
 * A cell as the Para morphism it is: S ⊗ A → S ⊗ B on vectors [S + A] → [S + B] (the state
 * first), one step of `run`. It prints as the cell (`lstm_cell(4,8)`) and reads the cell's
 * parameters under the cell's names (PyTorch's nn.LSTMCell's).
 */
export function cellMorphism(cell: Cell): Para {
  const { state: S, input: A, output: B } = cell;
  const self: Para = primitive({
    kind: cell.kind,
    args: cell.args,
    dom: [S + A],
    cod: [S + B],
    params: cell.params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const N = x.batch;
      const [s0, a] = splitRows(x, [S, A], [[S], [A]], ctx);
      const r = cell.run(theta, a!.reshape([N, 1, A]), s0, ctx);
      return {
        y: joinRows([r.s, r.y.reshape([N, B])], N, ctx),
        pullback: (dy, dTheta, needDx = true) => {
          const [ds, dout] = splitRows(dy, [S, B], [[S], [B]], ctx);
          const { dx, ds0 } = r.pullback(dout!.reshape([N, 1, B]), ds!, dTheta, needDx);
          return joinRows([ds0, dx.reshape([N, A])], N, ctx);
        },
      };
    },
  });
  return self;
}

/** The most floats a cell written as a morphism may copy in one run of its unrolled composite (2³⁰). */
export const MAX_UNROLLED_WORK = 2 ** 30;

/**
 * Any Para morphism f: [S + A] → [S + B] read as a cell with state size S. Its `run` is the lens
 * of the unrolled composite itself (src/nn/recurrent/unroll.ts: T copies of f threaded along the
 * state wire, the parameter tied) — the definition, for a cell written in spec strings.
 */
export function cellOf(f: Para, S: number): Cell {
  if (!f.dom || !f.cod || f.dom.length !== 1 || f.cod.length !== 1) {
    throw new ShapeError(`a cell must map vectors [S+A] → [S+B], but ${f} maps [${f.dom?.join(',') ?? '…'}] to [${f.cod?.join(',') ?? '…'}]`);
  }
  const A = f.dom[0]! - S,
    B = f.cod[0]! - S;
  if (!(Number.isInteger(S) && S > 0 && A >= 0 && B >= 0)) {
    throw new ShapeError(
      `${f} maps [${f.dom[0]}] → [${f.cod[0]}]: with a state of ${S} features it has no room for an input and an output (S must be ≤ both, and positive)`,
    );
  }
  const composites = new Map<string, Para>();
  const where = `${f} with state ${S}`;
  const cell: Cell = {
    kind: 'cell',
    args: [String(f), S],
    input: A,
    state: S,
    output: B,
    params: f.params,
    run: (theta, x, s0, ctx, bptt) => {
      checkSequence(where, x, A);
      const N = x.batch,
        T = x.shape[1]!;
      if (s0) checkState(where, s0, N, S);
      // step t of the composite copies the t outputs before it and the inputs after it: ~T²/2 wires in all
      const work = (N * T * T * (S + A + B)) / 2;
      if (work > MAX_UNROLLED_WORK)
        throw new TooLargeError(
          `${where} runs as its unrolled composite, whose ${T} steps copy about ${formatCount(work)} floats (T² × batch × the wires); at most ${formatCount(MAX_UNROLLED_WORK)}: use a named cell (lstm_cell, gru_cell, …) for long sequences`,
          { work },
        );
      const key = `${T},${bptt ?? ''}`;
      let u = composites.get(key);
      if (!u) composites.set(key, (u = unrolled(f, S, T, bptt)));
      return unrolledRun(u, theta, x, s0 ?? ctx.alloc([N, S], x.dtype), S, B, ctx);
    },
    toString: () => cellString(cell),
  };
  return cell;
}

/** The lens of the unrolled composite u: [S + T·A] → [T·B + S] as a cell run on [N, T, A]. */
function unrolledRun(u: Para, theta: readonly Tensor[], x: Tensor, s0: Tensor, S: number, B: number, ctx: Ctx): CellRun {
  const N = x.batch,
    T = x.shape[1]!,
    A = x.shape[2]!;
  const lens = u.forward(theta, joinRows([s0, x.reshape([N, T * A])], N, ctx), ctx);
  const [ys, s] = splitRows(lens.y, [T * B, S], [[T * B], [S]], ctx);
  return {
    y: ys!.reshape([N, T, B]),
    s: s!,
    pullback: (dy, ds, dTheta, needDx = true) => {
      const d = joinRows([dy ? dy.reshape([N, T * B]) : ctx.alloc([N, T * B], x.dtype), ds ?? ctx.alloc([N, S], x.dtype)], N, ctx);
      const dIn = lens.pullback(d, dTheta, true);
      const [ds0, dx] = splitRows(dIn, [S, T * A], [[S], [T * A]], ctx);
      return { dx: needDx ? dx!.reshape([N, T, A]) : ctx.alloc([N, T, A], x.dtype), ds0: ds0! };
    },
  };
}
