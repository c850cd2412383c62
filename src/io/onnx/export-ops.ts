import { isBatch } from '../../ops/dim.js';
import type { Dim } from '../../ops/dim.js';
import type { AttrValue, Op } from '../../ops/op.js';
import { ExportError } from '../errors.js';
import type { Attr, OnnxGraph } from './graph-proto.js';
import { DATA_TYPES } from './schema.js';

/**
 * An operator box as ONNX nodes at the graph's opset: the attributes paralens keeps for sizes,
 * axes and bounds become the inputs ONNX wants for them (Reshape's shape, opset 13's axes of
 * Squeeze, opset 18's of the reductions …); a size that is a multiple of the batch is computed
 * from the input's Shape; booleans and indices, which paralens holds as floats, are cast where
 * ONNX types them; operators newer than the opset are written out in older ones (Gelu before
 * 20, LayerNormalization before 17, Mish before 18, HardSwish and Trilu before 14).
 */

/** The attributes as ONNX attributes (empty lists and attributes listed in `skip` left out). */
function onnxAttrs(op: Op, skip: readonly string[] = []): Record<string, Attr> {
  const out: Record<string, Attr> = {};
  for (const [k, spec] of Object.entries(op.def.attrs)) {
    if (skip.includes(k)) continue;
    const v = op.attrs[k] as AttrValue;
    if (Array.isArray(v) && v.length === 0) continue;
    if (spec.kind === 'int') out[k] = { i: v as number };
    else if (spec.kind === 'float') out[k] = { f: v as number };
    else if (spec.kind === 'string') out[k] = { s: v as string };
    else if (spec.kind === 'floats') out[k] = { floats: v as number[] };
    else out[k] = { ints: plainInts(op, v as Dim[]) };
  }
  return out;
}

function plainInts(op: Op, v: readonly Dim[]): number[] {
  if (v.some(isBatch)) throw new ExportError(`cannot export ${op} to ONNX: a size depends on the batch where ONNX wants a number`);
  return v as number[];
}

const ints = (op: Op, k: string): readonly number[] => op.attrs[k] as readonly number[];
const num = (op: Op, k: string): number => op.attrs[k] as number;

/** The batch size as an int64 [1] (Shape of the graph input, first entry), made once per graph. */
const batchSizes = new WeakMap<OnnxGraph, string>();
function batchSize(g: OnnxGraph): string {
  let b = batchSizes.get(g);
  if (!b) {
    b = g.one('Slice', [g.one('Shape', [g.input]), g.int64('zero', [0]), g.int64('one', [1])]);
    batchSizes.set(g, b);
  }
  return b;
}

/** A shape as an int64 tensor; entries k·B computed from the batch size. */
export function shapeTensor(g: OnnxGraph, dims: readonly Dim[]): string {
  if (!dims.some(isBatch)) return g.int64('shape', dims as number[]);
  const parts = dims.map((d) => {
    if (!isBatch(d)) return g.int64('size', [d]);
    if (d.k === 1) return batchSize(g);
    if (Number.isInteger(d.k)) return g.one('Mul', [batchSize(g), g.int64('factor', [d.k])]);
    return g.one('Div', [batchSize(g), g.int64('divisor', [Math.round(1 / d.k)])]);
  });
  return g.one('Concat', parts, { axis: { i: 0 } });
}

const PREDICATE_OUT = new Set(['Equal', 'Less', 'LessOrEqual', 'Greater', 'GreaterOrEqual', 'IsNaN']);
const LOGICAL = new Set(['Not', 'And', 'Or', 'Xor']);

/** Axes as an input (at the opsets where ONNX takes them so) or an attribute. */
function axesNode(g: OnnxGraph, op: Op, x: string, axesAsInput: boolean, extra: Record<string, Attr> = {}): string {
  const axes = ints(op, 'axes');
  // noop_with_empty_axes came with the axes input (ReduceSum 13, the others 18); its default needs no saying
  const noop = op.attrs.noop_with_empty_axes;
  if (noop === 1 && !axesAsInput) throw new ExportError(`cannot export ${op} at opset ${g.opset}: noop_with_empty_axes needs opset 18`);
  const attrs = { ...onnxAttrs(op, ['axes', ...(noop === 1 ? [] : ['noop_with_empty_axes'])]), ...extra };
  if (!axes.length) return g.one(op.def.name, [x], attrs);
  return axesAsInput ? g.one(op.def.name, [x, g.int64('axes', axes)], attrs) : g.one(op.def.name, [x], { ...attrs, axes: { ints: axes } });
}

type Emit = (g: OnnxGraph, op: Op, ins: readonly string[]) => string[];

const single =
  (f: (g: OnnxGraph, op: Op, ins: readonly string[]) => string): Emit =>
  (g, op, ins) => [f(g, op, ins)];

const REDUCTIONS = ['ReduceSum', 'ReduceMean', 'ReduceMax', 'ReduceMin', 'ReduceProd', 'ReduceL1', 'ReduceL2', 'ReduceSumSquare', 'ReduceLogSumExp'];

const EMIT: Record<string, Emit> = {
  ...Object.fromEntries(REDUCTIONS.map((r) => [r, single((g, op, [x]) => axesNode(g, op, x!, r === 'ReduceSum' || g.opset >= 18))])),
  Squeeze: single((g, op, [x]) => axesNode(g, op, x!, true)),
  Unsqueeze: single((g, op, [x]) => axesNode(g, op, x!, true)),
  Reshape: single((g, op, [x]) => g.one('Reshape', [x!, shapeTensor(g, op.attrs.shape as Dim[])], num(op, 'allowzero') ? { allowzero: { i: 1 } } : {})),
  Expand: single((g, op, [x]) => g.one('Expand', [x!, shapeTensor(g, op.attrs.shape as Dim[])])),
  ConstantOfShape: single((g, op) =>
    g.one('ConstantOfShape', [shapeTensor(g, op.attrs.shape as Dim[])], { value: { t: { dims: [1], type: 'float', values: [num(op, 'value')] } } }),
  ),
  Tile: single((g, op, [x]) => g.one('Tile', [x!, g.int64('repeats', ints(op, 'repeats'))])),
  Split: (g, op, [x]) => g.node('Split', [x!, g.int64('split', ints(op, 'split'))], { axis: { i: num(op, 'axis') } }, ints(op, 'split').length),
  Slice: single((g, op, [x]) => {
    const ins = [x!, g.int64('starts', ints(op, 'starts')), g.int64('ends', ints(op, 'ends'))];
    if (ints(op, 'axes').length || ints(op, 'steps').length)
      ins.push(g.int64('axes', ints(op, 'axes').length ? ints(op, 'axes') : ints(op, 'starts').map((_, i) => i)));
    if (ints(op, 'steps').length) ins.push(g.int64('steps', ints(op, 'steps')));
    return g.one('Slice', ins);
  }),
  Pad: single((g, op, [x]) => {
    if (op.attrs.mode === 'wrap' && g.opset < 19) throw new ExportError(`cannot export ${op} at opset ${g.opset}: Pad's wrap mode needs opset 19`);
    return g.one('Pad', [x!, g.int64('pads', ints(op, 'pads')), g.float('pad_value', [num(op, 'value')], [])], { mode: { s: op.attrs.mode as string } });
  }),
  Clip: single((g, op, [x]) => {
    const lo = num(op, 'min'),
      hi = num(op, 'max');
    return g.one('Clip', [x!, Number.isFinite(lo) ? g.float('min', [lo], []) : '', Number.isFinite(hi) ? g.float('max', [hi], []) : '']);
  }),
  Range: single((g, op) =>
    g.one('Range', [g.float('start', [num(op, 'start')], []), g.float('limit', [num(op, 'limit')], []), g.float('delta', [num(op, 'delta')], [])]),
  ),
  Trilu: single((g, op, [x]) =>
    g.opset >= 14 ? g.one('Trilu', [x!, g.int64('k', [num(op, 'k')], true)], { upper: { i: num(op, 'upper') } }) : refuse(op, g, 14),
  ),
  Dropout: single((g, op, [x]) => g.one('Dropout', [x!, g.float('ratio', [num(op, 'ratio')], [])])),
  Einsum: single((g, op, ins) =>
    g.one('Einsum', ins, { equation: { s: `${String(op.attrs.inputs).replace(/_/g, '...')}->${String(op.attrs.output).replace(/_/g, '...')}` } }),
  ),
  Cast: single((g, op, [x]) => {
    const to = op.attrs.to as keyof typeof DATA_TYPES;
    if (to === 'float' || to === 'double' || to === 'float16' || to === 'bfloat16') return g.one('Identity', [x!]);
    return g.cast(g.cast(x!, to), 'float');
  }),
  Gather: single((g, op, [x, i]) => g.one('Gather', [x!, g.cast(i!, 'int64')], onnxAttrs(op))),
  Where: single((g, _op, [c, a, b]) => g.one('Where', [g.cast(c!, 'bool'), a!, b!])),
  Shape: single((g, op, [x]) =>
    g.cast(
      g.one('Shape', [x!], {
        ...(num(op, 'start') ? { start: { i: num(op, 'start') } } : {}),
        ...(num(op, 'end') < 2 ** 31 ? { end: { i: num(op, 'end') } } : {}),
      }),
      'float',
    ),
  ),
  Gelu: single((g, op, [x]) => {
    if (g.opset >= 20) return g.one('Gelu', [x!], { approximate: { s: op.attrs.approximate as string } });
    if (op.attrs.approximate === 'tanh') return tanhGelu(g, x!);
    // x·Φ(x) = x·(1 + erf(x/√2))/2
    const e = g.one('Erf', [g.one('Div', [x!, g.float('sqrt2', [Math.SQRT2], [])])]);
    return g.one('Mul', [g.one('Mul', [x!, g.one('Add', [e, g.float('one', [1], [])])]), g.float('half', [0.5], [])]);
  }),
  Mish: single((g, _op, [x]) => (g.opset >= 18 ? g.one('Mish', [x!]) : g.one('Mul', [x!, g.one('Tanh', [g.one('Softplus', [x!])])]))),
  HardSwish: single((g, _op, [x]) =>
    g.opset >= 14 ? g.one('HardSwish', [x!]) : g.one('Mul', [x!, g.one('HardSigmoid', [x!], { alpha: { f: 1 / 6 }, beta: { f: 0.5 } })]),
  ),
  LayerNormalization: single((g, op, ins) => (g.opset >= 17 ? g.one('LayerNormalization', ins, onnxAttrs(op, ['stash_type'])) : layerNormByParts(g, op, ins))),
  AveragePool: single((g, op, [x]) => g.one('AveragePool', [x!], onnxAttrs(op, ints(op, 'dilations').every((d) => d === 1) ? ['dilations'] : []))),
  BatchNormalization: single((g, op, ins) => g.one('BatchNormalization', ins, onnxAttrs(op, ['training_mode']))),
};

function refuse(op: Op, g: OnnxGraph, since: number): never {
  throw new ExportError(`cannot export ${op} at opset ${g.opset}: ${op.def.name} needs opset ${since} or later`);
}

/** GELU's tanh approximation in opsets without Gelu: x/2·(1 + tanh(√(2/π)(x + 0.044715x³))). */
export function tanhGelu(g: OnnxGraph, x: string): string {
  const cube = g.one('Mul', [g.one('Mul', [x, x]), x]);
  const inner = g.one('Mul', [g.one('Add', [x, g.one('Mul', [cube, g.float('c', [0.044715], [])])]), g.float('k', [Math.sqrt(2 / Math.PI)], [])]);
  return g.one('Mul', [g.one('Mul', [x, g.one('Add', [g.one('Tanh', [inner]), g.float('one', [1], [])])]), g.float('half', [0.5], [])]);
}

/** LayerNormalization before opset 17: (x − mean)/√(var + ε)·scale + bias over the axes from `axis` on. */
function layerNormByParts(g: OnnxGraph, op: Op, [x, scale, bias]: readonly string[]): string {
  const axis = num(op, 'axis');
  if (axis !== -1) throw new ExportError(`cannot export ${op} at opset ${g.opset}: written out only over the last axis (LayerNormalization needs opset 17)`);
  return layerNormParts(g, x!, scale!, bias, num(op, 'epsilon'));
}

/** (x − mean)/√(var + ε)·scale (+ bias) over the last axis, in opset 13's operators. */
export function layerNormParts(g: OnnxGraph, x: string, scale: string, bias: string | undefined, eps: number): string {
  const mean = (v: string): string => (g.opset >= 18 ? g.one('ReduceMean', [v, g.int64('axes', [-1])]) : g.one('ReduceMean', [v], { axes: { ints: [-1] } }));
  const centred = g.one('Sub', [x, mean(x)]);
  const variance = mean(g.one('Mul', [centred, centred]));
  const normed = g.one('Div', [centred, g.one('Sqrt', [g.one('Add', [variance, g.float('eps', [eps], [])])])]);
  const scaled = g.one('Mul', [normed, scale]);
  return bias ? g.one('Add', [scaled, bias]) : scaled;
}

/** An operator box as ONNX nodes; its outputs (float tensors, as paralens holds every value). */
export function emitOp(g: OnnxGraph, op: Op, ins: readonly string[]): string[] {
  const name = op.def.name;
  const own = EMIT[name];
  if (own) return own(g, op, ins);
  if (PREDICATE_OUT.has(name)) return [g.cast(g.one(name, ins, onnxAttrs(op)), 'float')];
  if (LOGICAL.has(name))
    return [
      g.cast(
        g.one(
          name,
          ins.map((x) => g.cast(x, 'bool')),
        ),
        'float',
      ),
    ];
  return g.node(name, ins, onnxAttrs(op), op.def.outputs?.(op.attrs) ?? 1);
}
