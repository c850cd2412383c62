import { ShapeError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { describeShape } from '../../para/para.js';
import type { Lens, Para } from '../../para/para.js';
import type { Shape } from '../../tensor/tensor.js';
import type { Cell } from './cell.js';
import { checkSequence } from './frame.js';
import { describeRecurrent } from './known.js';
import type { RecurrentInfo } from './known.js';
import { regimeOf } from './regime.js';

/** How a layer over a sequence prints and what it is: its spec name and arguments, and its description for known.ts. */
export interface Naming {
  readonly kind: string;
  readonly args: readonly (number | string)[];
  readonly layer?: RecurrentInfo['layer'];
}

/** The domain [T, A] a layer over sequences is fixed to, checked. */
export function sequenceDomain(where: string, dom: Shape, A: number): number {
  if (dom.length !== 2 || dom[1] !== A || !(dom[0]! >= 1))
    throw new ShapeError(`${where} expects a sequence [*,T,${A}] with T ≥ 1 per sample but got ${describeShape(dom)}`);
  return dom[0]!;
}

/**
 * scan(c): [T, A] → [T, B], every output of the cell along the sequence (from the zero state, or
 * the states a StateCarry hands over), and fold(c): [T, A] → [S], the final state — the
 * catamorphism of the algebra (0, c) for 1 + A × −. Both are Cell.run; they differ in which end
 * of it they show. The parameter is the cell's, shared by every step. Takes any T until composed.
 */
export function sequenceLayer(cell: Cell, role: 'scan' | 'fold', naming: Naming, T?: number): Para {
  const { input: A, output: B, state: S } = cell;
  const where = naming.args.length ? `${naming.kind}(${naming.args.join(',')})` : naming.kind;
  const self = primitive({
    kind: naming.kind,
    args: naming.args,
    dom: T === undefined ? undefined : [T, A],
    cod: T === undefined ? undefined : role === 'scan' ? [T, B] : [S],
    params: cell.params,
    at: (dom) => sequenceLayer(cell, role, naming, sequenceDomain(where, dom, A)),
    forward: (theta, x, ctx): Lens => {
      checkSequence(where, x, A);
      if (T !== undefined && x.shape[1] !== T) throw new ShapeError(`${where} expects [*,${T},${A}] but got [${x.shape.join(',')}]`);
      const regime = regimeOf(ctx);
      const carry = regime?.carry,
        slot = carry?.slot();
      const r = cell.run(theta, x, slot === undefined ? undefined : carry!.initial(slot, x.batch, S), ctx, regime?.bptt);
      if (slot !== undefined) carry!.keep(slot, r.s);
      if (role === 'scan') return { y: r.y, pullback: (dy, dTheta, needDx) => r.pullback(dy, null, dTheta, needDx).dx };
      return { y: r.s, pullback: (ds, dTheta, needDx) => r.pullback(null, ds, dTheta, needDx).dx };
    },
  });
  return describeRecurrent(self, { role, cell, layer: naming.layer });
}
