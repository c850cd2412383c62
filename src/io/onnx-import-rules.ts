import { elementwise } from '../nn/activation.js';
import { avgpool2d } from '../nn/avgpool2d.js';
import { conv1d } from '../nn/conv1d.js';
import { conv2d } from '../nn/conv2d.js';
import { dense } from '../nn/dense.js';
import { flatten } from '../nn/flatten.js';
import { globalavgpool } from '../nn/globalavgpool.js';
import { leakyRelu } from '../nn/leaky-relu.js';
import { maxpool2d } from '../nn/maxpool2d.js';
import { softmax } from '../nn/softmax.js';
import { dropout } from '../nn/markov/dropout.js';
import { embedding } from '../nn/embedding.js';
import { layernorm } from '../nn/layernorm.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import { ImportError } from './errors.js';
import type { OnnxConst, OnnxNode } from './onnx-decode.js';

/** A layer made from ONNX nodes with its parameters θ (in the order of its `params`). */
export interface Built {
  readonly m: Para;
  readonly theta: readonly Tensor[];
}

/** What an operator's rule sees: its node, the input value's per-sample shape, and the graph around it. */
export interface ImportRuleInput {
  readonly node: OnnxNode;
  readonly shape: Shape;
  /** A constant input (initializer or Constant node), or undefined when the input is computed. */
  constant(name: string): OnnxConst | undefined;
  /** The one node that reads `value`, when exactly one does and `value` is not the graph's output. */
  only(value: string): OnnxNode | undefined;
}

/** A rule's result: the layers (none for an identity) and the value the walk continues from. */
export interface ImportStep {
  readonly built: readonly Built[];
  readonly out: string;
}
export type ImportRule = (a: ImportRuleInput) => ImportStep;

const refuse = (n: OnnxNode, why: string): ImportError => new ImportError(`ONNX node '${n.name}' (${n.op}): ${why}`);

const ints = (n: OnnxNode, name: string, fallback: readonly number[]): readonly number[] => {
  const v = n.attrs.get(name);
  return Array.isArray(v) ? v : fallback;
};
const num = (n: OnnxNode, name: string, fallback: number): number => {
  const v = n.attrs.get(name);
  return typeof v === 'number' ? v : fallback;
};

/** The shortest decimal that is the same float32 (ONNX float attributes are float32: 0.1 arrives as 0.10000000149011612). */
function float32Decimal(v: number): number {
  for (let p = 1; p < 10; p++) {
    const d = Number(v.toPrecision(p));
    if (Math.fround(d) === Math.fround(v)) return d;
  }
  return v;
}

/** The float tensor of a constant input, refusing a computed one. */
function weight(a: ImportRuleInput, i: number, what: string): Tensor {
  const name = a.node.inputs[i];
  const c = name ? a.constant(name) : undefined;
  if (!c?.tensor)
    throw refuse(a.node, `its ${what} (input ${i + 1}) must be a float constant (an initializer), got ${name ? `the computed value '${name}'` : 'none'}`);
  return c.tensor;
}

/** Wᵀ of a 2-D tensor. */
export function transpose(w: Tensor): Tensor {
  const [r, c] = w.shape as [number, number];
  const t = Tensor.zeros([c, r]);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) t.data[j * r + i] = w.data[i * c + j]!;
  return t;
}

/** dense(in,out) from W [out,in] and an optional bias (zeros when the graph has none). */
function denseOf(n: OnnxNode, w: Tensor, b: Tensor | undefined, shape: Shape): Built {
  const [out, inn] = w.shape as [number, number];
  // on vectors [in], or on every position of a sequence [T, in]
  if (shape[shape.length - 1] !== inn) throw refuse(n, `its weight takes ${inn} features but the input is [*,${shape.join(',')}]`);
  if (b && b.size !== out) throw refuse(n, `its bias has ${b.size} values for ${out} outputs`);
  return { m: dense(inn, out), theta: [w.reshape([out, inn]), b ? b.reshape([out]) : Tensor.zeros([out])] };
}

const one = (built: Built, out: string): ImportStep => ({ built: [built], out });
const activation =
  (make: (n: OnnxNode) => Para): ImportRule =>
  ({ node }) =>
    one({ m: make(node), theta: [] }, node.outputs[0]!);

/** Pooling and convolution attributes that paralens's layers have: square windows, one stride, symmetric padding, no dilation. */
function window(n: OnnxNode, rank: number): { k: number; s: number; p: number } {
  const k = ints(n, 'kernel_shape', []);
  const s = ints(n, 'strides', Array(rank).fill(1));
  const p = ints(n, 'pads', Array(2 * rank).fill(0));
  const d = ints(n, 'dilations', Array(rank).fill(1));
  const autoPad = n.attrs.get('auto_pad');
  if (autoPad !== undefined && autoPad !== 'NOTSET') throw refuse(n, `auto_pad ${autoPad} is not read; export with explicit pads`);
  if (k.length !== rank || new Set(k).size !== 1) throw refuse(n, `kernel [${k.join(',')}] is not a square ${rank}-d window`);
  if (new Set(s).size !== 1) throw refuse(n, `strides [${s.join(',')}] differ between axes`);
  if (new Set(p).size > 1) throw refuse(n, `pads [${p.join(',')}] are not the same on every side`);
  if (d.some((v) => v !== 1)) throw refuse(n, `dilations [${d.join(',')}] are not 1`);
  return { k: k[0]!, s: s[0]!, p: p[0] ?? 0 };
}

function pool(make: (k: number, s: number) => Para): ImportRule {
  return ({ node, shape }) => {
    if (shape.length !== 3) throw refuse(node, `paralens pools images [C,H,W]; the input is [*,${shape.join(',')}]`);
    const { k, s, p } = window(node, 2);
    if (p !== 0) throw refuse(node, `padded pooling (pads ${p}) is not a paralens layer`);
    if (num(node, 'ceil_mode', 0) !== 0) throw refuse(node, 'ceil_mode 1 is not a paralens layer');
    return one({ m: make(k, s), theta: [] }, node.outputs[0]!);
  };
}

/** Reshape to [batch, features] (0 or -1 first, -1 or the feature count second): a flatten. */
function isFlatten(a: ImportRuleInput, n: OnnxNode, shape: Shape): boolean {
  if (n.op === 'Flatten') return num(n, 'axis', 1) === 1;
  if (n.op !== 'Reshape') return false;
  const target = a.constant(n.inputs[1] ?? '')?.ints;
  const features = shape.reduce((x, y) => x * y, 1);
  return !!target && target.length === 2 && (target[0] === 0 || target[0] === -1) && (target[1] === -1 || target[1] === features);
}

/** Each ONNX operator import reads, by op_type. */
export const IMPORT_RULES: Readonly<Record<string, ImportRule>> = {
  Gemm: (a) => {
    const n = a.node;
    if (num(n, 'alpha', 1) !== 1 || num(n, 'beta', 1) !== 1 || num(n, 'transA', 0) !== 0)
      throw refuse(n, 'only alpha = beta = 1 and transA = 0 are a dense layer');
    const w = weight(a, 1, 'weight');
    const b = n.inputs[2] ? weight(a, 2, 'bias') : undefined;
    return one(denseOf(n, num(n, 'transB', 0) ? w : transpose(w), b, a.shape), n.outputs[0]!);
  },
  /** MatMul(x, W) with W [in,out], and the Add of a bias right after it when there is one. */
  MatMul: (a) => {
    const n = a.node;
    const w = weight(a, 1, 'weight');
    if (w.rank !== 2) throw refuse(n, `a ${w.rank}-d weight is not a dense layer`);
    const next = a.only(n.outputs[0]!);
    const biasName = next?.op === 'Add' ? next.inputs.find((v) => v !== n.outputs[0]) : undefined;
    const bias = biasName ? a.constant(biasName)?.tensor : undefined;
    if (next && bias) return one(denseOf(n, transpose(w), bias, a.shape), next.outputs[0]!);
    return one(denseOf(n, transpose(w), undefined, a.shape), n.outputs[0]!);
  },
  Conv: (a) => {
    const n = a.node;
    const w = weight(a, 1, 'weight');
    const b = n.inputs[2] ? weight(a, 2, 'bias') : undefined;
    const rank = w.rank - 2;
    if (num(n, 'group', 1) !== 1) throw refuse(n, `grouped convolution (group ${num(n, 'group', 1)}) is not a paralens layer`);
    if (rank !== 1 && rank !== 2) throw refuse(n, `${rank}-d convolution is not a paralens layer`);
    const { k, s, p } = window(n, rank);
    const [outC, inC] = w.shape as [number, number];
    const m = rank === 2 ? conv2d(inC, outC, k, s, p) : conv1d(inC, outC, k, s, p);
    return one({ m, theta: [w, b ? b.reshape([outC]) : Tensor.zeros([outC])] }, n.outputs[0]!);
  },
  MaxPool: pool((k, s) => maxpool2d(k, s)),
  AveragePool: pool((k, s) => avgpool2d(k, s)),
  /** GlobalAveragePool gives [N,C,1,1]; with the Flatten (or Reshape) after it, it is globalavgpool [C]. */
  GlobalAveragePool: (a) => {
    const n = a.node;
    const next = a.only(n.outputs[0]!);
    const pooled = [a.shape[0]!, ...a.shape.slice(1).map(() => 1)];
    const out = next && isFlatten(a, next, pooled) ? next.outputs[0]! : n.outputs[0]!;
    return one({ m: globalavgpool(), theta: [] }, out);
  },
  Flatten: (a) => {
    if (!isFlatten(a, a.node, a.shape)) throw refuse(a.node, `Flatten with axis ${num(a.node, 'axis', 1)} is not paralens's flatten (axis 1)`);
    return one({ m: flatten(), theta: [] }, a.node.outputs[0]!);
  },
  Reshape: (a) => {
    if (!isFlatten(a, a.node, a.shape))
      throw refuse(a.node, 'only a reshape to [batch, features] (a flatten) is read; its target shape is not a constant of that form');
    return one({ m: flatten(), theta: [] }, a.node.outputs[0]!);
  },
  Relu: activation(() => elementwise('relu')),
  Sigmoid: activation(() => elementwise('sigmoid')),
  Tanh: activation(() => elementwise('tanh')),
  Softplus: activation(() => elementwise('softplus')),
  LeakyRelu: activation((n) => leakyRelu(float32Decimal(num(n, 'alpha', 0.01)))),
  Gelu: activation((n) => {
    if (n.attrs.get('approximate') !== 'tanh')
      throw refuse(n, "exact (erf) GELU differs from paralens's gelu, the tanh approximation; export with approximate='tanh'");
    return elementwise('gelu');
  }),
  Softmax: (a) => {
    const axis = num(a.node, 'axis', -1);
    if (!(axis === -1 || axis === a.shape.length)) throw refuse(a.node, `softmax over axis ${axis}; paralens's softmax is over the last axis`);
    return one({ m: softmax(), theta: [] }, a.node.outputs[0]!);
  },
  /** Dropout: dropout(ratio) (an inference graph usually has none: torch drops it in evaluation mode). */
  Dropout: (a) => {
    const ratio = a.constant(a.node.inputs[1] ?? '')?.tensor?.data[0] ?? num(a.node, 'ratio', 0.5);
    return one({ m: dropout(float32Decimal(ratio)), theta: [] }, a.node.outputs[0]!);
  },
  /** Pad by zeros on every side is the identity (torch.onnx.export writes one before AveragePool). */
  Pad: (a) => {
    const pads = a.constant(a.node.inputs[1] ?? '')?.ints ?? ints(a.node, 'pads', []);
    const mode = a.node.attrs.get('mode') ?? 'constant';
    if (mode !== 'constant' || pads.some((p) => p !== 0))
      throw refuse(a.node, `padding [${pads.join(',')}] (mode ${String(mode)}) is not a paralens layer; only pads of zero are read`);
    return { built: [], out: a.node.outputs[0]! };
  },
  Identity: (a) => ({ built: [], out: a.node.outputs[0]! }),
  /** Gather(table, ids) along axis 0: embedding(V,d) (ids arrive as the graph's integer input; paralens carries them as floats). */
  Gather: (a) => {
    const n = a.node;
    const table = a.constant(n.inputs[0] ?? '')?.tensor;
    if (!table || table.rank !== 2 || num(n, 'axis', 0) !== 0) throw refuse(n, 'only Gather of rows of a constant [V, d] table (an embedding) is read');
    const [V, d] = table.shape as [number, number];
    return one({ m: embedding(V, d), theta: [table] }, n.outputs[0]!);
  },
  /** LayerNormalization over the last axis with ε = 1e-5 (paralens's, PyTorch's default): layernorm(d). */
  LayerNormalization: (a) => {
    const n = a.node;
    const eps = num(n, 'epsilon', 1e-5);
    if (num(n, 'axis', -1) !== -1 && num(n, 'axis', -1) !== a.shape.length)
      throw refuse(n, `normalising from axis ${num(n, 'axis', -1)}; paralens's layernorm normalises the last axis`);
    if (Math.abs(eps - 1e-5) > 1e-9) throw refuse(n, `epsilon ${eps}; paralens's layernorm uses 1e-5`);
    const d = a.shape[a.shape.length - 1]!;
    const gain = weight(a, 1, 'scale');
    const bias = n.inputs[2] ? weight(a, 2, 'bias') : Tensor.zeros([d]);
    return one({ m: layernorm(d), theta: [gain.reshape([d]), bias.reshape([d])] }, n.outputs[0]!);
  },
};

/** Operators that are read as part of another's rule or by the walk (skip joins, products, copies, constants). */
export const STRUCTURAL_OPS = ['Add', 'Constant', 'Split', 'Concat', 'Transpose', 'Div', 'Where', 'Trilu', 'Cast'] as const;
