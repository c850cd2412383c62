import { ImportError } from '../errors.js';
import { isBatch } from '../../ops/dim.js';
import type { Dim, SymShape } from '../../ops/dim.js';
import { operator } from '../../ops/vocabulary.js';
import type { AttrValue, Attrs, OpDef } from '../../ops/op.js';
import type { OnnxAttr, OnnxNode, OnnxTensor } from './decode.js';
import { elems } from './known.js';
import type { Known } from './known.js';
import { ELEM_TYPE_OF } from './schema.js';

/**
 * How each ONNX node becomes an operator box: which operator of the vocabulary, with which
 * attributes, reading which of the node's inputs at run time. Most nodes map to the operator of
 * their name with their attributes as they are (the default rule); the rules here turn the
 * inputs ONNX uses for sizes, axes and bounds (Reshape's shape, Slice's starts, opset 18's axes
 * of the reductions …) into attributes, which needs those inputs known at import — the
 * evaluation (src/io/onnx/evaluate.ts) has folded every shape-only subgraph into such values.
 * docs/onnx.md's operator table and `paralens import --help` are generated from this list.
 */
export interface RuleInput {
  readonly node: OnnxNode;
  readonly opset: number;
  /** Input i, when it is given ('' and missing trailing inputs are absent). */
  has(i: number): boolean;
  /** The value of input i when import knows it. */
  known(i: number): Known | undefined;
  /** The shape of input i. */
  shape(i: number): SymShape | undefined;
}

export interface RuleResult {
  readonly op: string;
  readonly attrs: Attrs;
  /** The node's inputs the box reads, in order. */
  readonly inputs: readonly number[];
  /** How many of the node's outputs the box gives (the rest must be unused). */
  readonly outputs?: number;
}

export type ImportRule = (r: RuleInput) => RuleResult;

const refuse = (n: OnnxNode, why: string): ImportError => new ImportError(`ONNX node '${n.name}' (${n.op}): ${why}`);

/** The shortest decimal that is the same float32 (ONNX float attributes are float32: 0.1 arrives as 0.10000000149011612). */
export function float32Decimal(v: number): number {
  if (!Number.isFinite(v)) return v;
  for (let p = 1; p < 10; p++) {
    const d = Number(v.toPrecision(p));
    if (Math.fround(d) === Math.fround(v)) return d;
  }
  return v;
}

/** ONNX attributes an operator of the vocabulary ignores: they change nothing paralens computes. */
const IGNORED = new Set(['saturate', 'spatial', 'consumed_inputs', 'is_test']);

/** The node's attributes in the operator's schema (ONNX names and kinds agree), refusing one the operator does not know. */
export function attrsFor(def: OpDef, n: OnnxNode, skip: readonly string[] = []): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const [k, v] of n.attrs) {
    if (skip.includes(k) || IGNORED.has(k)) continue;
    const spec = def.attrs[k];
    if (!spec) throw refuse(n, `attribute '${k}' is not read (the operator knows ${Object.keys(def.attrs).join(', ') || 'none'})`);
    out[k] = convert(n, k, v, spec.kind);
  }
  return out;
}

function convert(n: OnnxNode, k: string, v: OnnxAttr, kind: string): AttrValue {
  const isNums = Array.isArray(v) && v.every((x) => typeof x === 'number');
  if ((kind === 'int' || kind === 'float') && typeof v === 'number') return kind === 'float' ? float32Decimal(v) : v;
  if ((kind === 'ints' || kind === 'dims') && isNums) return v as number[];
  if (kind === 'floats' && isNums) return (v as number[]).map(float32Decimal);
  if (kind === 'string' && typeof v === 'string') return v;
  throw refuse(n, `attribute '${k}' has a form the operator does not read`);
}

/** Input i as a list of integers known at import (a ShapeError-like refusal naming it otherwise). */
function intsOf(r: RuleInput, i: number, what: string): number[] {
  const k = r.known(i);
  if (!k) throw refuse(r.node, `its ${what} (input ${i + 1}) is computed from the data; import needs it known when the model is read`);
  const e = elems(k);
  if (e.some(isBatch)) throw refuse(r.node, `its ${what} depends on the batch size`);
  return e as number[];
}

/** Input i as sizes (a multiple of the batch allowed). */
function dimsOf(r: RuleInput, i: number, what: string): Dim[] {
  const k = r.known(i);
  if (!k) throw refuse(r.node, `its ${what} (input ${i + 1}) is computed from the data; import needs it known when the model is read`);
  return elems(k);
}

function scalarOf(r: RuleInput, i: number, what: string): number | undefined {
  if (!r.has(i)) return undefined;
  const v = intsOrFloats(r, i, what);
  if (v.length !== 1) throw refuse(r.node, `its ${what} must be one number`);
  return v[0];
}

function intsOrFloats(r: RuleInput, i: number, what: string): number[] {
  const k = r.known(i);
  if (!k) throw refuse(r.node, `its ${what} (input ${i + 1}) is computed from the data; import needs it known when the model is read`);
  if (k.batch?.some((b) => b)) throw refuse(r.node, `its ${what} depends on the batch size`);
  return Array.from(k.data);
}

const def = (name: string): OpDef => operator(name)!;

/** The default: the operator of the node's name, its attributes as they are, every input read at run time. */
export function defaultRule(r: RuleInput): RuleResult {
  const d = def(r.node.op);
  return { op: d.name, attrs: attrsFor(d, r.node), inputs: r.node.inputs.map((_, i) => i).filter((i) => r.has(i)) };
}

/** Axes from the attribute (older opsets) or from input 1 (opset 13's Squeeze/Unsqueeze/ReduceSum, opset 18's other reductions). */
function axesRule(name: string, attrsWithAxes: readonly string[] = []): ImportRule {
  return (r) => {
    const d = def(name);
    const attrs = attrsFor(d, r.node, attrsWithAxes);
    if (r.has(1)) attrs.axes = intsOf(r, 1, 'axes');
    return { op: name, attrs, inputs: [0] };
  };
}

const reduction = (name: string): ImportRule => axesRule(name);

/** The attribute `to` of Cast (an element type code) as a name. */
function castRule(r: RuleInput): RuleResult {
  const to = r.node.attrs.get('to');
  const name = typeof to === 'number' ? ELEM_TYPE_OF.get(to) : undefined;
  if (!name || name === 'string' || name.startsWith('complex')) throw refuse(r.node, `casts to element type ${String(to)}, which paralens does not hold`);
  return { op: 'Cast', attrs: { to: name }, inputs: [0] };
}

/** The node's one output is all a box gives; its other outputs must be unused. */
const firstOutput =
  (rule: ImportRule): ImportRule =>
  (r) => ({ ...rule(r), outputs: 1 });

export const IMPORT_RULES: Readonly<Record<string, ImportRule>> = {
  Reshape: (r) => ({ op: 'Reshape', attrs: { ...attrsFor(def('Reshape'), r.node), shape: dimsOf(r, 1, 'target shape') }, inputs: [0] }),
  Squeeze: axesRule('Squeeze'),
  Unsqueeze: axesRule('Unsqueeze'),
  ReduceSum: reduction('ReduceSum'),
  ReduceMean: reduction('ReduceMean'),
  ReduceMax: reduction('ReduceMax'),
  ReduceMin: reduction('ReduceMin'),
  ReduceProd: reduction('ReduceProd'),
  ReduceL1: reduction('ReduceL1'),
  ReduceL2: reduction('ReduceL2'),
  ReduceSumSquare: reduction('ReduceSumSquare'),
  ReduceLogSumExp: reduction('ReduceLogSumExp'),
  Split: (r) => {
    const n = r.node;
    const axis = typeof n.attrs.get('axis') === 'number' ? (n.attrs.get('axis') as number) : 0;
    let sizes: number[];
    const given = n.attrs.get('split');
    if (r.has(1)) sizes = intsOf(r, 1, 'split sizes');
    else if (Array.isArray(given)) sizes = given as number[];
    else {
      // equal parts (opset 18's num_outputs: the last one smaller when it does not divide)
      const s = r.shape(0);
      const rank = s?.length ?? 0;
      const len = s?.[axis < 0 ? axis + rank : axis];
      if (typeof len !== 'number') throw refuse(n, 'splits an axis whose size import does not know');
      const parts = typeof n.attrs.get('num_outputs') === 'number' ? (n.attrs.get('num_outputs') as number) : n.outputs.length;
      const each = Math.ceil(len / parts);
      sizes = Array.from({ length: parts }, (_, i) => Math.max(0, Math.min(each, len - i * each)));
    }
    return { op: 'Split', attrs: { axis, split: sizes }, inputs: [0] };
  },
  Slice: (r) => ({
    op: 'Slice',
    attrs: {
      starts: intsOf(r, 1, 'starts'),
      ends: intsOf(r, 2, 'ends'),
      ...(r.has(3) ? { axes: intsOf(r, 3, 'axes') } : {}),
      ...(r.has(4) ? { steps: intsOf(r, 4, 'steps') } : {}),
    },
    inputs: [0],
  }),
  Pad: (r) => {
    const n = r.node;
    const mode = typeof n.attrs.get('mode') === 'string' ? (n.attrs.get('mode') as string) : 'constant';
    let pads = intsOf(r, 1, 'pads');
    const value = scalarOf(r, 2, 'padding value') ?? 0;
    if (r.has(3)) {
      // opset 18: pads for the axes given only
      const rank = r.shape(0)!.length;
      const axes = intsOf(r, 3, 'axes').map((a) => (a < 0 ? a + rank : a));
      const full = new Array<number>(2 * rank).fill(0);
      axes.forEach((a, i) => {
        full[a] = pads[i]!;
        full[a + rank] = pads[i + axes.length]!;
      });
      pads = full;
    }
    return { op: 'Pad', attrs: { pads, mode, value: float32Decimal(value) }, inputs: [0] };
  },
  Clip: (r) => {
    const min = scalarOf(r, 1, 'minimum');
    const max = scalarOf(r, 2, 'maximum');
    return {
      op: 'Clip',
      attrs: {
        ...attrsFor(def('Clip'), r.node),
        ...(min !== undefined ? { min: float32Decimal(min) } : {}),
        ...(max !== undefined ? { max: float32Decimal(max) } : {}),
      },
      inputs: [0],
    };
  },
  Expand: (r) => ({ op: 'Expand', attrs: { shape: dimsOf(r, 1, 'shape') }, inputs: [0] }),
  Tile: (r) => ({ op: 'Tile', attrs: { repeats: intsOf(r, 1, 'repeats') }, inputs: [0] }),
  ConstantOfShape: (r) => {
    const v = r.node.attrs.get('value') as OnnxTensor | undefined;
    return { op: 'ConstantOfShape', attrs: { shape: dimsOf(r, 0, 'shape'), value: v ? float32Decimal(v.data[0] ?? 0) : 0 }, inputs: [] };
  },
  Range: (r) => ({
    op: 'Range',
    attrs: { start: scalarOf(r, 0, 'start') ?? 0, limit: scalarOf(r, 1, 'limit') ?? 0, delta: scalarOf(r, 2, 'delta') ?? 1 },
    inputs: [],
  }),
  Dropout: firstOutput((r) => {
    const ratio = r.has(1) ? scalarOf(r, 1, 'ratio')! : typeof r.node.attrs.get('ratio') === 'number' ? (r.node.attrs.get('ratio') as number) : 0.5;
    if (r.has(2) && scalarOf(r, 2, 'training_mode')) throw refuse(r.node, 'training_mode is true; export the model in evaluation mode');
    return { op: 'Dropout', attrs: { ratio: float32Decimal(ratio) }, inputs: [0] };
  }),
  Cast: castRule,
  CastLike: (r) => {
    const t = r.known(1)?.type ?? 'float';
    return { op: 'Cast', attrs: { to: t }, inputs: [0] };
  },
  Einsum: (r) => {
    const eq = r.node.attrs.get('equation');
    if (typeof eq !== 'string') throw refuse(r.node, 'has no equation');
    const arrow = eq.replace(/\s+/g, '').split('->');
    const ins = arrow[0]!.replace(/\.\.\./g, '_');
    const parsed = parseImplicit(ins, arrow[1]);
    return { op: 'Einsum', attrs: { inputs: ins, output: parsed }, inputs: r.node.inputs.map((_, i) => i) };
  },
  Trilu: (r) => ({ op: 'Trilu', attrs: { ...attrsFor(def('Trilu'), r.node), ...(r.has(1) ? { k: scalarOf(r, 1, 'k')! } : {}) }, inputs: [0] }),
  MaxPool: firstOutput(defaultRule),
  BatchNormalization: firstOutput(defaultRule),
  LayerNormalization: firstOutput(defaultRule),
};

/** Einsum's output letters: given, or (implicit form) the letters appearing once, sorted, after an ellipsis. */
function parseImplicit(inputs: string, output: string | undefined): string {
  if (output !== undefined) return output.replace(/\.\.\./g, '_');
  const letters = inputs.replace(/[,_]/g, '');
  const once = [...new Set(letters)].filter((c) => letters.split(c).length === 2).sort();
  return (inputs.includes('_') ? '_' : '') + once.join('');
}

/** The rule for an ONNX operator: its own, or the default when the vocabulary has an operator of its name; undefined when import cannot read it. */
export function ruleFor(op: string): ImportRule | undefined {
  return IMPORT_RULES[op] ?? (operator(op) ? defaultRule : undefined);
}

/** The ONNX operators import reads besides the vocabulary's (evaluated while reading, never boxes). */
export const READ_WHILE_IMPORTING = ['Constant', 'Identity', 'Shape', 'Size', 'If', 'CastLike'] as const;
