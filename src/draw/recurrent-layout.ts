import { unrolled } from '../nn/recurrent/index.js';
import { primitive } from '../para/composite.js';
import { sizeOf } from '../tensor/tensor.js';
import type { RecurrentInfo } from '../nn/recurrent/index.js';
import type { Para } from '../para/para.js';
import type { Diagram, Node, Wire } from './diagram-types.js';
import { textWidth } from './svg.js';

/** The pieces of layout.ts a recurrent layer's picture is made of (passed in: layout.ts calls this file). */
export interface LayoutKit {
  box(label: string, params: string[]): Diagram;
  framed(label: string, body: Diagram): Diagram;
  parallel(layouts: Diagram[]): Diagram;
  layout(f: Para): Diagram;
}

/** The most steps `--unroll` draws. */
export const MAX_UNROLL = 12;

const PARAM = 26;
const STUB = 56;

/**
 * One direction of a recurrent layer as the algebra's diagram: the cell's box (its parameters
 * entering from above) reading x_t and the state, writing y_t and the next state, and the state
 * wire looping back under the box from its output to its input, starting at s₀ = 0. For a fold
 * the state is also the output.
 */
function algebra(info: RecurrentInfo, label: string, params: string[], kit: LayoutKit, title: string): Diagram {
  const c = info.cell;
  const body = kit.box(label, params);
  const node = body.nodes[0]!;
  const h = 48,
    w = node.w,
    top = node.y;
  const inPort = top + 14,
    statePort = top + 36,
    loopY = top + h + 16;
  const x0 = STUB;
  const boxNode: Node = { ...node, x: x0, y: top, h };
  const wires: Wire[] = body.wires.map((wire) => ({ ...wire, points: wire.points.map(([x, y]) => [x + x0, y] as [number, number]) }));
  const right = x0 + w;
  const fold = info.role === 'fold';
  wires.push({
    points: [
      [0, inPort],
      [x0, inPort],
    ],
    label: info.role === 'unfold' ? '' : `x_t [${c.input}]`,
  });
  if (!fold)
    wires.push({
      points: [
        [right, inPort],
        [right + STUB, inPort],
      ],
      label: `y_t [${c.output}]`,
    });
  // the state wire: out of the box, around beneath it, back in (from s₀ = 0 at the first step)
  wires.push({
    points: [
      [right, statePort],
      [right + STUB / 2, loopY],
      [x0 - STUB / 2, loopY],
      [x0, statePort],
    ],
    label: `state [${c.state}], s₀ = 0${info.role === 'unfold' ? '; y_t fed back as x_t+1' : ''}`,
  });
  if (fold)
    wires.push({
      points: [
        [right, statePort],
        [right + STUB, statePort],
      ],
      label: `[${c.state}]`,
    });
  const width = Math.max(right + STUB, textWidth(title, 10) + 16);
  return { width, height: loopY + 16, nodes: [boxNode], wires, frames: [], inY: inPort, outY: fold ? statePort : inPort };
}

/**
 * A recurrent layer's picture: the algebra's diagram (the cell and its state loop) in a frame
 * naming the layer and the combinator — both directions stacked for bidirectional — or, with
 * `unroll` = T, its unrolled composite over T steps (T copies of the cell threaded along the
 * state wire, tied to one θ), the composite whose pullback is backpropagation through time.
 */
export function recurrentLayout(f: Para, info: RecurrentInfo, kit: LayoutKit, unroll?: number): Diagram {
  const c = info.cell;
  if (unroll !== undefined && info.role !== 'bidirectional') {
    // the cell as drawn: its parameters summed up as the one θ every copy reads
    const P = c.params.reduce((n, p) => n + sizeOf(p.shape), 0);
    const shown = primitive({
      kind: c.kind,
      args: c.args,
      dom: [c.state + c.input],
      cod: [c.state + c.output],
      params: [{ name: 'θ', shape: [P], init: () => {} }],
      forward: () => {
        throw new Error(`${c} is drawn here, not run`);
      },
    });
    const u = unrolled(shown, c.state, unroll);
    const steps = u.kind === 'reparam' ? u.children[0]! : u;
    return kit.framed(`${f} unrolled over ${unroll} steps: state ⊗ inputs → outputs ⊗ state, every copy of ${c} reading one θ (tie)`, kit.layout(steps));
  }
  const params = (from: number, to: number): string[] => f.params.slice(from, to).map((p) => `${p.name} [${p.shape.join(',')}]`);
  const k = c.params.length;
  const what = { scan: 'every output', fold: 'the final state', unfold: 'outputs fed back', bidirectional: 'both directions', cell: '' }[info.role];
  const title = `${f}: the algebra (s₀ = 0, ${c}) — ${what}`;
  if (info.role === 'bidirectional') {
    const fwd = algebra({ ...info, role: 'scan' }, `${c} →`, params(0, k), kit, '');
    const bwd = algebra({ ...info, role: 'scan' }, `${c}′ ← (reversed in time)`, params(k, 2 * k), kit, '');
    return kit.framed(title, kit.parallel([fwd, bwd]));
  }
  return kit.framed(title, algebra(info, String(c), params(0, k), kit, title));
}
