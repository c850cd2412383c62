import { makeCtx } from '../../para/para.js';
import { elementwise } from '../../nn/activation.js';
import { erf } from '../../ops/erf.js';
import { operator } from '../../ops/vocabulary.js';
import { Tensor } from '../../tensor/tensor.js';
import type { IrBox } from './ir.js';
import type { RewriteRule, RewriteView } from './rewrite-rule.js';

/**
 * Activations written out as arithmetic (PyTorch 1.13 writes GELU as x·(1 + erf(x/√2))/2, its
 * tanh form and nanoGPT's as the tanh formula, HardSwish and Mish by parts): a region of
 * elementwise boxes fed by one wire x and scalar constants is a function of x alone; it is
 * evaluated on probe points and compared with the activations the vocabulary names — so the
 * order in which the exporter wrote the factors does not matter. A match becomes one box.
 */

const ELEMENTWISE = new Set([
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Pow',
  'Neg',
  'Abs',
  'Sqrt',
  'Exp',
  'Log',
  'Reciprocal',
  'Erf',
  'Tanh',
  'Sigmoid',
  'Relu',
  'Softplus',
  'HardSigmoid',
  'Clip',
  'Max',
  'Min',
  'Identity',
]);

/** Every activation of the candidates has one of these (a region of Relu and Add alone is none of them). */
const CURVED = new Set(['Erf', 'Tanh', 'HardSigmoid', 'Clip', 'Exp', 'Softplus', 'Log', 'Sigmoid', 'Reciprocal', 'Div', 'Min', 'Max']);

/** The most boxes a region may have (GELU's tanh form, the longest written-out activation, has 9). */
const MAX_REGION = 16;

const PROBES = Float64Array.from({ length: 49 }, (_, i) => -6 + i * 0.25 + 0.0137);

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)));

/** The activations a region may be, each with the box it becomes (an operator or a layer). */
const CANDIDATES: readonly { name: string; f: (x: number) => number; box: (x: number, y: number, from: string) => IrBox }[] = [
  {
    name: 'gelu',
    f: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
    box: (x, y, from) => ({ kind: 'layer', layer: elementwise('gelu'), theta: [], inputs: [x], outputs: [y], from }),
  },
  {
    name: 'Gelu',
    f: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
    box: (x, y, from) => ({ kind: 'op', op: operator('Gelu')!.make({}), inputs: [x], outputs: [y], from }),
  },
  {
    name: 'HardSwish',
    f: (x) => x * Math.max(0, Math.min(1, x / 6 + 0.5)),
    box: (x, y, from) => ({ kind: 'op', op: operator('HardSwish')!.make({}), inputs: [x], outputs: [y], from }),
  },
  {
    name: 'Mish',
    f: (x) => x * Math.tanh(softplus(x)),
    box: (x, y, from) => ({ kind: 'op', op: operator('Mish')!.make({}), inputs: [x], outputs: [y], from }),
  },
  {
    name: 'Softplus',
    f: softplus,
    box: (x, y, from) => ({ kind: 'layer', layer: elementwise('softplus'), theta: [], inputs: [x], outputs: [y], from }),
  },
  {
    name: 'Sigmoid',
    f: sigmoid,
    box: (x, y, from) => ({ kind: 'layer', layer: elementwise('sigmoid'), theta: [], inputs: [x], outputs: [y], from }),
  },
];

/** The region of elementwise boxes around wire x: every such box whose inputs are x, scalars or the region's (to a fixpoint). */
function region(x: number, v: RewriteView): IrBox[] {
  const isEw = (c: IrBox): boolean => c.kind === 'op' && ELEMENTWISE.has(c.op.def.name);
  const inside = new Set<number>([x]);
  const boxes = new Set<IrBox>();
  let frontier = [...v.readers(x)];
  while (frontier.length && boxes.size < MAX_REGION) {
    const next: IrBox[] = [];
    let grew = false;
    for (const c of frontier) {
      if (boxes.has(c) || !isEw(c) || !c.inputs.every((w) => inside.has(w) || v.scalar(w) !== undefined)) continue;
      boxes.add(c);
      grew = true;
      for (const o of c.outputs) {
        inside.add(o);
        next.push(...v.readers(o));
      }
    }
    // boxes waiting for a sibling's output are looked at again once it is inside
    frontier = grew ? [...next, ...frontier.filter((c) => !boxes.has(c))] : [];
  }
  // a topological order: the graph's
  return [...boxes].sort((a, c) => v.position(a) - v.position(c));
}

/** The values of every wire of the region on the probe points. */
function evaluateRegion(x: number, boxes: readonly IrBox[], v: RewriteView): Map<number, Tensor> | undefined {
  const values = new Map<number, Tensor>([[x, new Tensor(Float64Array.from(PROBES), [PROBES.length])]]);
  const ctx = { ...makeCtx(), batch: 1 };
  for (const b of boxes) {
    if (b.kind !== 'op') return undefined;
    const ins = b.inputs.map((w) => values.get(w) ?? Tensor.of([v.scalar(w)!], [], 'float64'));
    try {
      const ys = b.op.forward(ins, ctx).ys;
      b.outputs.forEach((w, i) => values.set(w, ys[i]!));
    } catch {
      return undefined;
    }
  }
  return values;
}

const close = (got: Tensor, f: (x: number) => number): boolean => PROBES.every((p, i) => Math.abs(got.data[i]! - f(p)) <= 1e-5 * (1 + Math.abs(f(p))));

/** The regions found in one pass, by their input wire (each is looked at from its first box only). */
const regions = new WeakMap<RewriteView, Map<number, IrBox[]>>();

export const matchActivation: RewriteRule = (b, v) => {
  if (b.kind !== 'op' || !ELEMENTWISE.has(b.op.def.name)) return undefined;
  const dynamic = b.inputs.filter((w) => v.scalar(w) === undefined);
  if (dynamic.length !== 1) return undefined;
  const x = dynamic[0]!;
  let seen = regions.get(v);
  if (!seen) regions.set(v, (seen = new Map()));
  let boxes = seen.get(x);
  if (!boxes) seen.set(x, (boxes = region(x, v)));
  if (boxes.length < 2 || boxes[0] !== b || !boxes.some((c) => c.kind === 'op' && CURVED.has(c.op.def.name))) return undefined;
  const values = evaluateRegion(x, boxes, v);
  if (!values) return undefined;
  const producer = new Map<number, IrBox>(boxes.flatMap((c) => c.outputs.map((o) => [o, c] as const)));
  // the latest wire of the region that is a known activation of x, computed by boxes whose other wires are read only among them
  for (let end = boxes.length - 1; end >= 1; end--) {
    const y = boxes[end]!.outputs[0]!;
    const part = new Set<IrBox>();
    const stack = [boxes[end]!];
    while (stack.length) {
      const c = stack.pop()!;
      if (part.has(c)) continue;
      part.add(c);
      for (const w of c.inputs) if (producer.has(w)) stack.push(producer.get(w)!);
    }
    if (part.size < 2 || !part.has(b)) continue;
    const closed = [...part].every((c) => c.outputs.every((w) => w === y || (w !== v.ir.output && v.readers(w).every((r) => part.has(r)))));
    if (!closed) continue;
    const got = values.get(y);
    if (!got || got.size !== PROBES.length) continue;
    const match = CANDIDATES.find((c) => close(got, c.f));
    if (match) return { remove: [...part], add: match.box(x, y, b.from), what: match.name };
  }
  return undefined;
};
