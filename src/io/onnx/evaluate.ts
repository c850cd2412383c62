import { ParalensError, TooLargeError } from '../../errors.js';
import { BATCH, isBatch, printShape } from '../../ops/dim.js';
import type { SymShape } from '../../ops/dim.js';
import type { Op } from '../../ops/op.js';
import { operator, PENDING_OPERATORS } from '../../ops/vocabulary.js';
import { makeCtx } from '../../para/para.js';
import { sizeOf, Tensor } from '../../tensor/tensor.js';
import { ImportError } from '../errors.js';
import type { OnnxGraphProto, OnnxModel, OnnxNode, OnnxTensor } from './decode.js';
import { Ir } from './ir.js';
import { elems, hasBatch, knownOf, tensorOfKnown } from './known.js';
import type { Known } from './known.js';
import { float32Decimal, READ_WHILE_IMPORTING, ruleFor } from './rules.js';
import type { RuleInput, RuleResult } from './rules.js';
import { recurrentFromOnnx } from './recurrent-weights.js';
import { isFloatType } from './schema.js';
import type { ElemType } from './schema.js';
import { foldSymbolic } from './symbolic.js';

/**
 * Reads an ONNX graph into boxes on wires (src/io/onnx/ir.ts): nodes in a topological order
 * found by a loop (Kahn's), a cycle refused naming a value on it; every value either known
 * (initializers, Constants and what is computed from them and from shapes alone — folded here,
 * the batch kept symbolic) or computed at run time (a box). Known values a box reads at run
 * time become parameters when they come from initializers and a gradient reaches them, and
 * constants otherwise.
 */

/** The most entries a value folded at import may have (a hostile ConstantOfShape or Expand cannot allocate more). */
const MAX_FOLDED = 2 ** 24;
const FLOAT32_MAX = 3.4028234663852886e38;

type Val = { readonly known: Known } | { readonly wire: number };

export interface Evaluated {
  readonly ir: Ir;
  /** The graph input: its name, element type and dimensions as the file gives them. */
  readonly input: { readonly name: string; readonly type: ElemType; readonly dims: readonly (number | string)[] };
  /** The batch size the file fixes (an export without a dynamic batch axis), read as any batch. */
  readonly fixedBatch: number | undefined;
  readonly notes: string[];
}

/** The ONNX recurrent operators import reads as paralens's layers (lstm, gru, rnn; recurrent-weights.ts). */
export const RECURRENT_OPERATORS = ['GRU', 'LSTM', 'RNN'] as const;
const isRecurrentOp = (op: string): boolean => (RECURRENT_OPERATORS as readonly string[]).includes(op);

const refuse = (n: OnnxNode, why: string): ImportError => new ImportError(`ONNX node '${n.name}' (${n.op}): ${why}`);

/** The operators of nodes import cannot read, each named with its node (all of them, subgraphs included). */
function unsupported(g: OnnxGraphProto, opset: number, out: string[]): void {
  const readable = new Set<string>(READ_WHILE_IMPORTING);
  for (const n of g.nodes) {
    const foreign = n.domain !== '' && n.domain !== 'ai.onnx';
    if (foreign || !(readable.has(n.op) || ruleFor(n.op) || isRecurrentOp(n.op))) {
      const pending = !foreign ? PENDING_OPERATORS[n.op] : undefined;
      out.push(`${foreign ? `${n.domain}.` : ''}${n.op} (node '${n.name}', opset ${opset}${pending ? `: ${pending}` : ''})`);
    }
    for (const a of n.attrs.values()) if (a && typeof a === 'object' && 'nodes' in a) unsupported(a as OnnxGraphProto, opset, out);
  }
}

/** The outer values a subgraph reads (it may read any value of the graphs around it). */
function outerReads(g: OnnxGraphProto, into: Set<string>): void {
  const own = new Set<string>([...g.initializers.map((t) => t.name), ...g.inputs.map((v) => v.name), ...g.nodes.flatMap((n) => n.outputs)]);
  for (const n of g.nodes) {
    for (const v of n.inputs) if (v && !own.has(v)) into.add(v);
    for (const a of n.attrs.values()) if (a && typeof a === 'object' && 'nodes' in a) outerReads(a as OnnxGraphProto, into);
  }
}

/** The nodes in a topological order; a value written twice, read but never written, or on a cycle is refused by name. */
export function topologicalOrder(g: OnnxGraphProto, given: ReadonlySet<string>): OnnxNode[] {
  const producer = new Map<string, number>();
  g.nodes.forEach((n, i) => {
    for (const v of n.outputs) {
      if (!v) continue;
      if (given.has(v) || producer.has(v)) {
        const first = producer.has(v) ? `node '${g.nodes[producer.get(v)!]!.name}'` : 'the graph (an input or initializer)';
        throw new ImportError(`the value '${v}' is written twice: by ${first} and by node '${n.name}'`);
      }
      producer.set(v, i);
    }
  });
  const needs = g.nodes.map((n) => {
    const reads = new Set(n.inputs.filter((v) => v));
    for (const a of n.attrs.values()) if (a && typeof a === 'object' && 'nodes' in a) outerReads(a as OnnxGraphProto, reads);
    for (const v of reads)
      if (!given.has(v) && !producer.has(v))
        throw new ImportError(`node '${n.name}' (${n.op}) reads the value '${v}', which no node writes and the graph does not give`);
    return [...reads].filter((v) => producer.has(v));
  });
  const waiting = needs.map((r) => new Set(r).size);
  const readers = new Map<string, number[]>();
  needs.forEach((r, i) => new Set(r).forEach((v) => readers.set(v, [...(readers.get(v) ?? []), i])));
  const order: OnnxNode[] = [];
  const ready = g.nodes.map((_, i) => i).filter((i) => waiting[i] === 0);
  const done = new Array<boolean>(g.nodes.length).fill(false);
  for (let head = 0; head < ready.length; head++) {
    const i = ready[head]!;
    done[i] = true;
    const n = g.nodes[i]!;
    order.push(n);
    for (const v of n.outputs) for (const j of readers.get(v) ?? []) if (--waiting[j]! === 0) ready.push(j);
  }
  if (order.length < g.nodes.length) {
    const stuck = g.nodes.findIndex((_, i) => !done[i]);
    const v = needs[stuck]!.find((u) => !done[producer.get(u)!])!;
    throw new ImportError(`the value '${v}' is computed from itself: node '${g.nodes[stuck]!.name}' (${g.nodes[stuck]!.op}) reads it on a cycle of the graph`);
  }
  return order;
}

/**
 * `fixed`: read a file exported with a fixed batch N as it is — every size a number, the batch
 * N — for a graph that runs N rows at a time (when its shape arithmetic cannot be read for any
 * batch).
 */
export function evaluate(model: OnnxModel, fixed = false): Evaluated {
  const g = model.graph;
  const notes: string[] = [];
  if (model.opset < 13)
    throw new ImportError(`the model uses opset ${model.opset}; import reads opsets 13 to 20 (export again with opset_version=13 or later)`);
  const bad: string[] = [];
  unsupported(g, model.opset, bad);
  if (bad.length)
    throw new ImportError(`cannot import: unsupported ONNX operators: ${bad.join(', ')}; \`paralens import --help\` lists the operators import reads`);
  if (g.inputs.length !== 1 || g.outputs.length !== 1)
    throw new ImportError(
      `cannot import: the graph has ${g.inputs.length} inputs (${g.inputs.map((v) => v.name).join(', ')}) and ${g.outputs.length} outputs (${g.outputs.map((v) => v.name).join(', ')}); a Para morphism has one of each`,
    );
  const input = g.inputs[0]!;
  if (input.type === 'sequence' || input.type === 'map' || !input.dims)
    throw new ImportError(`cannot import: the input '${input.name}' is not a tensor of known rank`);
  const rest = input.dims.slice(1);
  if (input.dims.length < 2 || !rest.every((d): d is number => typeof d === 'number' && d > 0))
    throw new ImportError(
      `cannot import: the input '${input.name}' has dimensions [${input.dims.join(',')}]; expected [batch, sizes…] with fixed sizes after the batch axis`,
    );
  const fixedBatch = typeof input.dims[0] === 'number' ? input.dims[0] : undefined;
  if (fixed && fixedBatch === undefined) throw new ImportError('cannot import: a fixed batch was asked of a file whose batch is not fixed');
  if (fixedBatch !== undefined)
    notes.push(
      fixed
        ? `the file fixes the batch at ${fixedBatch}: the graph runs ${fixedBatch} rows at a time`
        : `the file fixes the batch at ${fixedBatch}; read as any batch (axis 0 of the input)`,
    );

  const ir = new Ir();
  const inputType = input.type ?? 'float';
  ir.input = ir.wire({ shape: [fixed ? fixedBatch! : BATCH, ...rest], type: inputType, name: input.name });
  const vals = new Map<string, Val>([[input.name, { wire: ir.input }]]);
  const sources = new Map<number, { known: Known; differentiable: boolean }>();
  for (const t of g.initializers) vals.set(t.name, { known: knownOfTensor(t, true) });

  /**
   * The wire of a value a box reads at run time. A known one becomes a source box, decided at the
   * end: a weight (from an initializer, floats) gets a box per reader — exporters merge equal
   * initializers (the ones of two LayerNorms), which were separate parameters of the model — and
   * anything else is one constant however often it is read.
   */
  const shared = new Map<Known, number>();
  const wireOf = (v: Val, differentiable: boolean, n: OnnxNode): number => {
    if ('wire' in v) return v.wire;
    const k = v.known;
    if (hasBatch(k)) throw refuse(n, `reads '${k.name}', sizes that depend on the batch, as data`);
    const weight = k.fromInit && isFloatType(k.type) && differentiable;
    const had = weight ? undefined : shared.get(k);
    if (had !== undefined) return had;
    const wire = ir.wire({ shape: k.dims, type: k.type, name: k.name });
    sources.set(wire, { known: k, differentiable });
    if (!weight) shared.set(k, wire);
    return wire;
  };
  const shapeOf = (v: Val): SymShape => ('wire' in v ? ir.wires[v.wire]!.shape : v.known.dims);
  const typeOf = (v: Val): ElemType => ('wire' in v ? ir.wires[v.wire]!.type : v.known.type);

  const run = (graph: OnnxGraphProto, depth: number): void => {
    const given = new Set<string>([...vals.keys(), ...graph.initializers.map((t) => t.name)]);
    for (const t of graph.initializers) vals.set(t.name, { known: knownOfTensor(t, true) });
    for (const n of topologicalOrder(graph, given)) {
      try {
        step(n, depth);
      } catch (e) {
        if (e instanceof ImportError || e instanceof TooLargeError || !(e instanceof ParalensError)) throw e;
        throw refuse(n, e.message);
      }
    }
  };

  const step = (n: OnnxNode, depth: number): void => {
    const get = (i: number): Val | undefined => {
      const name = n.inputs[i];
      return name ? vals.get(name) : undefined;
    };
    const setOut = (i: number, v: Val): void => {
      const name = n.outputs[i];
      if (name) vals.set(name, v);
    };
    switch (n.op) {
      case 'Constant':
        return setOut(0, { known: constantNode(n) });
      case 'Identity':
        return setOut(0, get(0)!);
      case 'Shape': {
        const s = shapeOf(get(0)!);
        const r = s.length;
        const at = (a: unknown, d: number): number => {
          const v = typeof a === 'number' ? a : d;
          return Math.min(Math.max(v < 0 ? v + r : v, 0), r);
        };
        return setOut(0, {
          known: knownOf(
            s.slice(at(n.attrs.get('start'), 0), at(n.attrs.get('end'), r)),
            [Math.max(0, at(n.attrs.get('end'), r) - at(n.attrs.get('start'), 0))],
            'int64',
            n.outputs[0]!,
          ),
        });
      }
      case 'Size': {
        const s = shapeOf(get(0)!);
        const total = s.reduce<number | { k: number }>((p, d) => (isBatch(d) ? { k: (isBatch(p) ? NaN : p) * d.k } : isBatch(p) ? { k: p.k * d } : p * d), 1);
        return setOut(0, { known: knownOf([total as number], [], 'int64', n.outputs[0]!) });
      }
      case 'If': {
        const cond = get(0);
        if (!cond || !('known' in cond) || hasBatch(cond.known))
          throw refuse(n, 'its condition depends on the data; import reads an If only when the condition is known when the model is read');
        const branch = n.attrs.get(cond.known.data[0] ? 'then_branch' : 'else_branch') as OnnxGraphProto | undefined;
        if (!branch) throw refuse(n, 'has no branch to take');
        run(branch, depth + 1);
        branch.outputs.forEach((o, i) => setOut(i, vals.get(o.name)!));
        return;
      }
    }
    if (isRecurrentOp(n.op)) return recurrentNode(n, get, setOut);
    const rule = ruleFor(n.op)!;
    const r: RuleInput = {
      node: n,
      opset: model.opset,
      has: (i) => !!n.inputs[i],
      known: (i) => {
        const v = get(i);
        return v && 'known' in v ? v.known : undefined;
      },
      shape: (i) => {
        const v = get(i);
        return v ? shapeOf(v) : undefined;
      },
    };
    let res: RuleResult = rule(r);
    if (fixedBatch !== undefined && !fixed) res = batchFromFixed(res, fixedBatch, r);
    const op = operator(res.op)!.make(res.attrs);
    const count = res.outputs ?? n.outputs.length;
    for (let i = count; i < n.outputs.length; i++)
      if (n.outputs[i] && usedLater(n.outputs[i]!)) throw refuse(n, `its output ${i + 1} ('${n.outputs[i]}') is read, which import does not give`);
    const ins = res.inputs.map((i) => {
      const v = get(i);
      if (!v) throw refuse(n, `input ${i + 1} is missing`);
      return v;
    });
    const outNames = n.outputs.slice(0, count);
    const types = outNames.map(() => outputType(n, res, ins.map(typeOf), (i) => r.known(i)));
    // a size that is a multiple of the batch (ConstantOfShape of [B, 1]) is computed at run time
    const batchSized = Object.values(res.attrs).some((a) => Array.isArray(a) && a.some((d) => typeof d === 'object' && isBatch(d)));
    if (ins.every((v) => 'known' in v) && op.def.name !== 'Dropout' && !batchSized) {
      const known = ins.map((v) => (v as { known: Known }).known);
      const folded = fold(op, n, known, types, outNames);
      folded.forEach((k, i) => setOut(i, { known: k }));
      return;
    }
    if (op.def.name === 'Div' && types[0] && !isFloatType(types[0]))
      throw refuse(n, 'divides integers at run time, which paralens (holding numbers as floats) does not compute exactly');
    const wires = ins.map((v, i) => wireOf(v, op.differentiable(i), n));
    const shapes = op.shapes(wires.map((w) => ir.wires[w]!.shape));
    const outs = shapes.map((s, i) => ir.wire({ shape: s, type: types[i] ?? 'float', name: outNames[i] || `${n.name}_${i}` }));
    ir.add({ kind: 'op', op, inputs: wires, outputs: outs, from: n.name });
    outs.forEach((w, i) => setOut(i, { wire: w }));
  };

  /**
   * ONNX LSTM, GRU and RNN (layout 0: X [T, B, in]) as paralens's recurrent layer on [B, T, in]:
   * Transpose, the layer (W, R, B read when the model is read, in PyTorch's gate order: see
   * recurrent-weights.ts), and back to ONNX's Y [T, dirs, B, h] (Transpose and Unsqueeze, or Reshape and Transpose) — the
   * Transposes an exporter wrapped around the node then meet their inverses. Initial states and
   * sequence lengths must be absent (zero states, every sequence whole), and only Y is given.
   */
  const recurrentNode = (n: OnnxNode, get: (i: number) => Val | undefined, setOut: (i: number, v: Val) => void): void => {
    const op = n.op as 'LSTM' | 'GRU' | 'RNN';
    // zeros: known ones, or a ConstantOfShape of 0 sized by the batch (PyTorch writes its zero states so)
    const zeros = (v: Val | undefined): boolean => {
      if (!v) return true;
      if ('known' in v) return !hasBatch(v.known) && v.known.data.every((e) => e === 0);
      const p = ir.boxes.find((b) => b?.outputs.includes(v.wire));
      return p?.kind === 'op' && p.op.def.name === 'ConstantOfShape' && p.op.attrs.value === 0;
    };
    for (const [i, what] of [
      [4, 'sequence_lens'],
      [5, 'initial_h'],
      [6, 'initial_c'],
      [7, 'P (peepholes)'],
    ] as const)
      if (n.inputs[i] && (i === 4 || i === 7 || !zeros(get(i))))
        throw refuse(n, `reads ${what}; import reads recurrent nodes from zero initial states over whole sequences, without peepholes`);
    for (let i = 1; i < n.outputs.length; i++)
      if (n.outputs[i] && usedLater(n.outputs[i]!)) throw refuse(n, `its output ${i + 1} ('${n.outputs[i]}', the final state) is read; import gives Y only`);
    const x = get(0);
    if (!x || !('wire' in x)) throw refuse(n, 'its input X is not computed from the model input');
    const weight = (i: number, what: string): Tensor | undefined => {
      const v = get(i);
      if (!v) return undefined;
      if (!('known' in v) || hasBatch(v.known)) throw refuse(n, `its ${what} must be known when the model is read (an initializer)`);
      return new Tensor(Float32Array.from(v.known.data), v.known.dims);
    };
    const W = weight(1, 'W'),
      R = weight(2, 'R');
    if (!W || !R) throw refuse(n, 'has no W or R');
    const attr = <T>(k: string): T | undefined => n.attrs.get(k) as T | undefined;
    const { model, theta } = recurrentFromOnnx(
      op,
      { W, R, ...(n.inputs[3] ? { B: weight(3, 'B')! } : {}) },
      {
        hidden_size: attr<number>('hidden_size'),
        direction: attr<string>('direction'),
        linear_before_reset: attr<number>('linear_before_reset'),
        activations: attr<readonly string[]>('activations'),
        clip: attr<number>('clip'),
        input_forget: attr<number>('input_forget'),
        layout: attr<number>('layout'),
      },
    );
    const xShape = ir.wires[x.wire]!.shape;
    const [T, batch, A] = xShape;
    if (typeof batch === 'number' && xShape.length === 3)
      throw refuse(
        n,
        `reads X with the batch fixed at ${batch}: a recurrent layer is read only for any batch (export with a dynamic batch axis: dynamic_axes={'input': {0: 'batch'}})`,
      );
    if (xShape.length !== 3 || typeof T !== 'number' || typeof A !== 'number' || batch === undefined)
      throw refuse(n, `reads X of shape ${printShape(xShape)}; expected [T, batch, in] with T and in fixed (layout 0)`);
    const D = W.shape[0]!,
      h = R.shape[2]!;
    const box = (o: Op, input: number, name: string): number => {
      const [shape] = o.shapes([ir.wires[input]!.shape]);
      const w = ir.wire({ shape: shape!, type: 'float', name });
      ir.add({ kind: 'op', op: o, inputs: [input], outputs: [w], from: n.name });
      return w;
    };
    const seqFirst = box(operator('Transpose')!.make({ perm: [1, 0, 2] }), x.wire, `${n.name}_X`);
    const y = ir.wire({ shape: [batch, T, D * h], type: 'float', name: `${n.name}_y` });
    ir.add({ kind: 'layer', layer: model.at([T, A]), theta, inputs: [seqFirst], outputs: [y], from: n.name });
    const Y = n.outputs[0] || `${n.name}_Y`;
    if (D === 1) {
      // one direction: [T, B, h], its axis of directions put back (the Squeeze a PyTorch export follows it with meets it)
      const seq = box(operator('Transpose')!.make({ perm: [1, 0, 2] }), y, `${n.name}_seq`);
      setOut(0, { wire: box(operator('Unsqueeze')!.make({ axes: [1] }), seq, Y) });
    } else {
      const split = box(operator('Reshape')!.make({ shape: [0, T, D, h] }), y, `${n.name}_dirs`);
      setOut(0, { wire: box(operator('Transpose')!.make({ perm: [1, 2, 0, 3] }), split, Y) });
    }
  };

  // which values are read at all (an output nobody reads may be left out)
  const reads = new Set<string>(g.outputs.map((o) => o.name));
  const collect = (graph: OnnxGraphProto): void => {
    for (const n of graph.nodes) {
      for (const v of n.inputs) if (v) reads.add(v);
      for (const a of n.attrs.values()) if (a && typeof a === 'object' && 'nodes' in a) collect(a as OnnxGraphProto);
    }
  };
  collect(g);
  const usedLater = (v: string): boolean => reads.has(v);

  run(g, 0);
  const out = vals.get(g.outputs[0]!.name);
  if (!out || !('wire' in out)) throw new ImportError(`cannot import: the output '${g.outputs[0]!.name}' does not depend on the input`);
  ir.output = out.wire;
  const outShape = ir.wires[out.wire]!.shape;
  const lead = outShape[0];
  if (!(
    outShape.length >= 1 &&
    lead !== undefined &&
    (fixed ? lead === fixedBatch : isBatch(lead) && lead.k === 1) &&
    outShape.slice(1).every((d) => !isBatch(d))
  ))
    throw new ImportError(`cannot import: the output has shape ${printShape(outShape)}; a Para morphism's output has the batch axis first (and only there)`);
  // the known values boxes read: parameters where they are weights a gradient reaches, constants otherwise
  const sourceBoxes = [...sources].map(([wire, { known: k, differentiable }]) => {
    const value = new Tensor(Float32Array.from(k.data), k.dims);
    const nan = value.data.findIndex((v) => Number.isNaN(v));
    if (nan >= 0) throw new ImportError(`cannot import: '${k.name}' holds NaN at index ${nan}; a model's weights and constants must be numbers`);
    const param = k.fromInit && isFloatType(k.type) && differentiable;
    if (param) {
      const bad = value.data.findIndex((v) => !Number.isFinite(v));
      if (bad >= 0) throw new ImportError(`cannot import: the weight '${k.name}' holds ${value.data[bad]} at index ${bad}; a model's weights must be finite`);
    } else if (value.size > 16 && value.data.some((v) => !Number.isFinite(v))) {
      // a stored constant must be finite (model files hold finite numbers): ±∞ (a mask) becomes ±float32 max, which softmax treats alike
      for (let i = 0; i < value.size; i++) if (!Number.isFinite(value.data[i]!)) value.data[i] = Math.sign(value.data[i]!) * FLOAT32_MAX;
      notes.push(`the constant '${k.name}' holds ±∞; stored as ±${FLOAT32_MAX} (the largest float32)`);
    }
    return param
      ? ({ kind: 'param', value, inputs: [], outputs: [wire], from: k.name } as const)
      : ({ kind: 'constant', value: value.size <= 16 ? literal(k) : value, inputs: [], outputs: [wire], from: k.fromInit ? k.name : 'c' } as const);
  });
  ir.boxes = [...sourceBoxes, ...ir.boxes];
  ir.prune();
  return { ir, input: { name: input.name, type: inputType as ElemType, dims: input.dims }, fixedBatch, notes };
}

/** A small constant as the spec writes it: float32 values as their shortest decimals (1e-5, not 0.000009999999747378752). */
function literal(k: Known): Tensor {
  const f32 = k.data instanceof Float32Array;
  return new Tensor(
    Float64Array.from(k.data, (v) => (f32 ? float32Decimal(v) : v)),
    k.dims,
  );
}

/** A known value from a tensor of the file. */
function knownOfTensor(t: OnnxTensor, fromInit: boolean): Known {
  return { dims: t.dims, type: t.type, data: t.data, fromInit, name: t.name };
}

/** A Constant node's value. */
function constantNode(n: OnnxNode): Known {
  const name = n.outputs[0]!;
  const v = n.attrs.get('value') ?? n.attrs.get('value_float') ?? n.attrs.get('value_floats') ?? n.attrs.get('value_int') ?? n.attrs.get('value_ints');
  if (v && typeof v === 'object' && 'dims' in v) return { ...knownOfTensor(v as OnnxTensor, false), name };
  if (typeof v === 'number') return knownOf([v], [], n.attrs.has('value_int') ? 'int64' : 'float', name);
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return knownOf(v as number[], [v.length], n.attrs.has('value_ints') ? 'int64' : 'float', name);
  throw refuse(n, 'a Constant of strings or a sparse tensor is not read');
}

const PREDICATES = new Set(['Equal', 'Less', 'LessOrEqual', 'Greater', 'GreaterOrEqual', 'And', 'Or', 'Xor', 'Not', 'IsNaN']);

/** The element type of a box's outputs. */
function outputType(n: OnnxNode, res: RuleResult, ins: readonly ElemType[], known: (i: number) => Known | undefined): ElemType {
  if (res.op === 'Cast') return res.attrs.to as ElemType;
  if (PREDICATES.has(res.op)) return 'bool';
  if (res.op === 'Where') return ins[1] ?? 'float';
  if (res.op === 'ConstantOfShape') return ((n.attrs.get('value') as OnnxTensor | undefined)?.type ?? 'float') as ElemType;
  if (res.op === 'Range') return known(0)?.type ?? 'int64';
  return ins[0] ?? 'float';
}

/** A node on known inputs, computed at import (with the batch kept symbolic where an input holds it). */
function fold(op: Op, n: OnnxNode, ins: readonly Known[], types: readonly ElemType[], outNames: readonly string[]): Known[] {
  const fromInit = ins.some((k) => k.fromInit);
  if (ins.some(hasBatch)) {
    const r = foldSymbolic(op, n.name, ins, types, outNames);
    if (!r)
      throw refuse(
        n,
        `computes sizes from the batch size in a way import cannot keep symbolic (${ins
          .map(
            (k) =>
              `[${elems(k)
                .map((e) => (isBatch(e) ? (e.k === 1 ? 'B' : `${e.k}B`) : e))
                .join(',')}]`,
          )
          .join(', ')})`,
      );
    return r;
  }
  const shapes = op.shapes(ins.map((k) => k.dims));
  for (const s of shapes) {
    const size = sizeOf(s as number[]);
    if (!(size <= MAX_FOLDED))
      throw new TooLargeError(`ONNX node '${n.name}' (${n.op}) computes a constant of ${size} entries at import; at most ${MAX_FOLDED}`, { elements: size });
  }
  const ys = op.forward(ins.map(tensorOfKnown), { ...makeCtx(), batch: 1 }).ys;
  return ys.map((y, i) => {
    const t = types[i] ?? 'float';
    const data = Float64Array.from(y.data, (v) => (t === 'bool' ? (v !== 0 ? 1 : 0) : isFloatType(t) ? v : Math.trunc(v)));
    return { dims: y.shape, type: t, data, fromInit, name: outNames[i] ?? n.name };
  });
}

/**
 * A file exported with a fixed batch N holds N where it means the batch (torch writes
 * `x.view(x.size(0), -1)` as a Reshape to [N, −1]): a Reshape target entry at the input's
 * batch axis that is a multiple of N, or an Expand target entry of N where the input has the
 * batch, is read as that multiple of B.
 */
function batchFromFixed(res: RuleResult, N: number, r: RuleInput): RuleResult {
  if (res.op !== 'Reshape' && res.op !== 'Expand') return res;
  const x = r.shape(0);
  const at = x?.findIndex((d) => isBatch(d)) ?? -1;
  if (at < 0) return res;
  const target = [...(res.attrs.shape as readonly (number | { k: number })[])];
  if (target.some(isBatch)) return res;
  const entry = target[at];
  if (res.op === 'Expand') {
    const j = target.length - x!.length + at;
    if (target[j] === N) target[j] = BATCH;
    else return res;
  } else if (typeof entry === 'number' && entry > 0 && entry % N === 0) target[at] = { k: entry / N };
  else return res;
  return { ...res, attrs: { ...res.attrs, shape: target } };
}
