import { ShapeError } from '../../errors.js';
import { joinRows, splitRows } from '../../para/composite.js';
import type { Tensor } from '../../tensor/tensor.js';
import { cellString } from './cell.js';
import type { Cell, CellRun } from './cell.js';

/**
 * stack(c₁, …, cₙ): cells stacked in depth, each reading the output of the one below at the
 * same step — one cell with state S₁ ⊗ … ⊗ Sₙ. Its run is layer by layer (c₁ over the whole
 * sequence, then c₂ over c₁'s outputs, …), which the interchange law makes equal to running the
 * stacked cell step by step: scan(stack(c₁, c₂)) = scan(c₁) >> scan(c₂). Parameters are the
 * cells' in order, named `i.name` as in a composite.
 */
export function stack(cells: readonly Cell[]): Cell {
  if (cells.length === 0) throw new ShapeError('stack needs at least one cell');
  cells.forEach((c, i) => {
    const next = cells[i + 1];
    if (next && c.output !== next.input) throw new ShapeError(`stack: ${c} outputs ${c.output} features but ${next} reads ${next.input}`);
  });
  const states = cells.map((c) => c.state);
  const S = states.reduce((a, b) => a + b, 0);
  const counts = cells.map((c) => c.params.length);
  const offsets = counts.map((_, i) => counts.slice(0, i).reduce((a, b) => a + b, 0));
  const cell: Cell = {
    kind: 'stack',
    args: cells.map(String),
    input: cells[0]!.input,
    state: S,
    output: cells[cells.length - 1]!.output,
    params: cells.flatMap((c, i) => c.params.map((p) => ({ ...p, name: `${i}.${p.name}` }))),
    run: (theta, x, s0, ctx, bptt) => {
      const N = x.batch;
      const parts = s0
        ? splitRows(
            s0,
            states,
            states.map((n) => [n]),
            ctx,
          )
        : cells.map(() => undefined);
      const runs: CellRun[] = [];
      let y = x;
      cells.forEach((c, i) => {
        const r = c.run(theta.slice(offsets[i], offsets[i]! + counts[i]!), y, parts[i], ctx, bptt);
        runs.push(r);
        y = r.y;
      });
      return {
        y,
        s: joinRows(
          runs.map((r) => r.s),
          N,
          ctx,
        ),
        pullback: (dy, ds, dTheta, needDx = true) => {
          const dss = ds
            ? splitRows(
                ds,
                states,
                states.map((n) => [n]),
                ctx,
              )
            : cells.map(() => null);
          const ds0: Tensor[] = new Array(cells.length);
          let d: Tensor | null = dy;
          for (let i = cells.length - 1; i >= 0; i--) {
            const back = runs[i]!.pullback(d, dss[i] ?? null, dTheta && dTheta.slice(offsets[i], offsets[i]! + counts[i]!), i > 0 || needDx);
            ds0[i] = back.ds0;
            d = back.dx;
          }
          return { dx: d!, ds0: joinRows(ds0, N, ctx) };
        },
      };
    },
    toString: () => cellString(cell),
  };
  return cell;
}
