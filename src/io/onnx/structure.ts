import { dimEquals, isBatch } from '../../ops/dim.js';
import { GraphBuilder } from '../../ops/builder.js';
import { OpGraph } from '../../ops/graph.js';
import { isLayerOp, opLayer } from '../../ops/op-layer.js';
import { seqOf } from '../../para/composite.js';
import { id, residual } from '../../para/structure.js';
import type { Para } from '../../para/para.js';
import { ParalensError } from '../../errors.js';
import { parseSpec } from '../../catalogue/index.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Ir, IrBox } from './ir.js';

/**
 * The boxes of an import as a Para morphism that reads like the model: cut where a single
 * batch-first wire carries everything on (every path from the input to the output passes it),
 * the pieces composed with >>; a piece that is one layer (or one operator of one wire) is that
 * layer, a piece x ↦ x + f(x) is residual(f) (f read the same way, up to a nesting depth a spec
 * can hold), and any other piece is graph(…) of its boxes. The parameters come out in the order
 * of the morphism's.
 */

/** Residuals nest at most this deep in a spec (spec strings nest up to 64 levels; a deeper fan-out stays graph(…)). */
const MAX_RESIDUAL_DEPTH = 16;

interface Built {
  readonly m: Para;
  readonly theta: Tensor[];
}

const batchFirst = (ir: Ir, w: number): boolean => {
  const s = ir.wires[w]!.shape;
  return s.length >= 1 && isBatch(s[0]!) && s[0].k === 1 && s.slice(1).every((d) => !isBatch(d));
};

/** Each source (parameter, constant) moved to just before its first reader, so that it is live no longer than it must be. */
function sourcesLate(boxes: readonly IrBox[]): IrBox[] {
  const sources = boxes.filter((b) => b.kind === 'param' || b.kind === 'constant');
  const rest = boxes.filter((b) => b.kind !== 'param' && b.kind !== 'constant');
  const placed = new Set<IrBox>();
  const out: IrBox[] = [];
  for (const b of rest) {
    for (const s of sources) if (!placed.has(s) && b.inputs.includes(s.outputs[0]!)) (placed.add(s), out.push(s));
    out.push(b);
  }
  return out;
}

/** The Para of the boxes from wire `input` to wire `output` (boxes in a topological order, all of them needed). */
export function toPara(ir: Ir, boxes: readonly IrBox[], input: number, output: number, depth = 0): Built {
  const order = sourcesLate(boxes);
  // a graph that computes the identity (an Identity, a Pad of zeros …, left out)
  if (order.length === 0) return { m: id(ir.wires[input]!.shape.slice(1) as number[]), theta: [] };
  // the last box reading each wire
  const lastRead = new Map<number, number>();
  order.forEach((b, i) => b.inputs.forEach((w) => lastRead.set(w, i)));
  const live = new Set<number>([input]);
  const pieces: { boxes: IrBox[]; from: number; to: number }[] = [];
  let from = input,
    start = 0;
  order.forEach((b, i) => {
    for (const w of b.inputs) if (lastRead.get(w) === i) live.delete(w);
    for (const w of b.outputs) if ((lastRead.get(w) ?? -1) > i || w === output) live.add(w);
    const [only] = live;
    if (live.size === 1 && only !== undefined && only !== from && batchFirst(ir, only) && b.outputs.includes(only)) {
      pieces.push({ boxes: order.slice(start, i + 1), from, to: only });
      from = only;
      start = i + 1;
    }
  });
  if (start < order.length || from !== output) pieces.push({ boxes: order.slice(start), from, to: output });
  // each piece fixed to the shape its input has (a layer on vectors may act on every position of a sequence)
  const fixedAt = (b: Built, from: number): Built => ({ m: b.m.at(ir.wires[from]!.shape.slice(1) as number[]), theta: b.theta });
  const dom = ir.wires[input]!.shape.slice(1) as number[];
  const groups = pieces.filter((q) => q.boxes.length).map((p) => ({ ...p, built: fixedAt(piece(ir, p.boxes, p.from, p.to, depth), p.from) }));
  // A spec is read from its first piece on, each piece fixed to what the one before gives when read alone: a piece that
  // reads its input's axes as they are (a graph, an operator on axes) after layers on vectors (dense(16,48) on [T,16])
  // can be given the vectors and refuse them. Such a piece and the one before it become one graph, until the spec reads.
  for (let i = misread(groups, dom); i > 0; i = misread(groups, dom)) {
    const [a, b] = [groups[i - 1]!, groups[i]!];
    const boxes = [...a.boxes, ...b.boxes];
    groups.splice(i - 1, 2, { boxes, from: a.from, to: b.to, built: fixedAt(graphOf(ir, boxes, a.from, b.to), a.from) });
  }
  const built = groups.map((g) => g.built);
  return { m: built.length === 1 ? built[0]!.m : seqOf(built.map((b) => b.m)), theta: built.flatMap((b) => b.theta) };
}

/**
 * The first piece at which the spec's reading fails (−1: none): reading composes each piece,
 * read alone, with what the pieces before give when read alone, which is refused where a piece
 * would be given a shape it cannot take; once all are composed the whole is fixed to the input's
 * shape, which fixes each piece again to what it is given then.
 */
function misread(groups: readonly { built: Built }[], dom: readonly number[]): number {
  let acc: Para | undefined;
  for (let i = 0; i < groups.length; i++) {
    try {
      acc = acc ? seqOf([acc, alone(groups[i]!.built.m)]) : alone(groups[i]!.built.m);
    } catch (e) {
      if (e instanceof ParalensError) return i;
      throw e;
    }
  }
  const last = groups[groups.length - 1]!.built.m;
  try {
    if (acc!.at(dom).cod!.join(',') === last.cod!.join(',')) return -1;
  } catch (e) {
    if (!(e instanceof ParalensError)) throw e;
  }
  return groups.length - 1;
}

/** m as its spec reads it alone (its domain not fixed), without printing a graph's statements and reading them back. */
function alone(m: Para): Para {
  if (m instanceof OpGraph) return new OpGraph(m.nodes, m.names, m.output, undefined, m.fixedBatch);
  if (m.kind === 'seq') return seqOf(m.children.map(alone));
  if (m.kind === 'residual') return residual(alone(m.children[0]!));
  return parseSpec(String(m));
}

/** One piece: a layer, an operator of one wire, residual(f), or graph(…). */
function piece(ir: Ir, boxes: readonly IrBox[], from: number, to: number, depth: number): Built {
  if (boxes.length === 1) {
    const b = boxes[0]!;
    if (b.kind === 'layer' && b.inputs[0] === from) return { m: b.layer, theta: [...b.theta] };
    if (b.kind === 'op' && b.inputs.length === 1 && b.inputs[0] === from && isLayerOp(b.op)) return { m: opLayer(b.op), theta: [] };
  }
  const last = boxes[boxes.length - 1]!;
  if (depth < MAX_RESIDUAL_DEPTH && last.kind === 'op' && last.op.def.name === 'Add' && last.inputs.length === 2 && last.inputs.includes(from)) {
    const z = last.inputs[0] === from ? last.inputs[1]! : last.inputs[0]!;
    const body = boxes.slice(0, -1);
    if (
      z !== from &&
      body.length &&
      batchFirst(ir, z) &&
      sameShape(ir, z, from) &&
      !body.some((b) => (b.inputs as readonly number[]).includes(last.outputs[0]!))
    ) {
      const f = toPara(ir, body, from, z, depth + 1);
      // residual(f) reads back as f does (Residual.at fixes f at the same domain)
      return { m: residual(f.m), theta: f.theta };
    }
  }
  return graphOf(ir, boxes, from, to);
}

const sameShape = (ir: Ir, a: number, b: number): boolean => {
  const s = ir.wires[a]!.shape,
    t = ir.wires[b]!.shape;
  return s.length === t.length && s.every((d, i) => dimEquals(d, t[i]!));
};

/** A hint for a box's output wire: its layer kind or operator, or the ONNX name of a parameter. */
function hint(b: IrBox): string {
  if (b.kind === 'param' || b.kind === 'constant') return b.from;
  if (b.kind === 'layer') return b.layer.kind;
  return b.op.def.name.toLowerCase();
}

/** graph(…) of the boxes, x the wire `from`; with `fixedBatch` a graph of that many rows at a time (its input's first size). */
export function graphOf(ir: Ir, boxes: readonly IrBox[], from: number, to: number, fixedBatch?: number): Built {
  const b = new GraphBuilder();
  const wires = new Map<number, number>([[from, b.input]]);
  const values = new Map<number, Tensor[]>();
  const at = (w: number): number => {
    const v = wires.get(w);
    if (v === undefined) throw new Error(`import: wire ${ir.wires[w]?.name} is read before it is written`);
    return v;
  };
  for (const box of boxes) {
    let outs: number[];
    switch (box.kind) {
      case 'param':
        outs = [b.param(box.value.shape, hint(box))];
        values.set(outs[0]!, [box.value]);
        break;
      case 'constant':
        outs = [b.constant(box.value, hint(box))];
        values.set(outs[0]!, [box.value]);
        break;
      case 'layer':
        outs = [b.layer(box.layer, at(box.inputs[0]), hint(box))];
        values.set(outs[0]!, [...box.theta]);
        break;
      case 'op':
        outs = b.op(
          box.op,
          box.inputs.map(at),
          box.outputs.map(() => hint(box)),
        );
        break;
    }
    box.outputs.forEach((w, i) => wires.set(w, outs[i]!));
  }
  const dom = ir.wires[from]!.shape.slice(1) as number[];
  const g: OpGraph = b.build(at(to), dom, fixedBatch);
  const theta = g.nodes.flatMap((n) => (n.kind === 'param' || (n.kind === 'constant' && n.stored) || n.kind === 'layer' ? (values.get(n.output) ?? []) : []));
  return { m: g, theta };
}
