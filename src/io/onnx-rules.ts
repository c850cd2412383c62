import { quote } from '../errors.js';
import type { Para } from '../para/para.js';
import { ExportError } from './errors.js';
import type { NamedParam, OnnxGraph, Value } from './onnx-graph.js';

/**
 * How each kind of morphism becomes ONNX nodes. A rule gets the morphism (domain fixed),
 * its slice of θ, the input value and the graph, and returns the output value; `emit`
 * exports a sub-morphism, so the rules for seq, par and residual are the functor from
 * Para's composites to the graph: ∘ ↦ chaining, ⊗ ↦ Split/Concat along axis 1, the
 * skip connection ↦ Add. Another module adds a rule for its layer with `defineOnnxRule`.
 */
export interface OnnxRuleInput {
  readonly m: Para;
  readonly theta: readonly NamedParam[];
  readonly x: Value;
  readonly g: OnnxGraph;
  emit(m: Para, theta: readonly NamedParam[], x: Value): Value;
}
export type OnnxRule = (a: OnnxRuleInput) => Value;

const rules = new Map<string, OnnxRule>();

export function defineOnnxRule(kind: string, rule: OnnxRule): void {
  rules.set(kind, rule);
}

export function onnxKinds(): string[] {
  return [...rules.keys()].sort();
}

export function onnxRule(m: Para): OnnxRule {
  const r = rules.get(m.kind);
  if (!r) throw new ExportError(`cannot export layer ${quote(m)} to ONNX: no ONNX rule for kind ${quote(m.kind)}; exportable: ${onnxKinds().join(', ')}`);
  return r;
}

/** Each child's slice of θ (seq and par list their children's parameters one after another). */
function slices(children: readonly Para[], theta: readonly NamedParam[]): (readonly NamedParam[])[] {
  let at = 0;
  return children.map((c) => theta.slice(at, (at += c.params.length)));
}

/** The value's name, refusing the empty value where a tensor is needed. */
function need(v: Value, m: Para): string {
  if (v.name === null) throw new ExportError(`cannot export layer ${quote(m)} to ONNX: its input is empty (everything was discarded before it)`);
  return v.name;
}

const same = (m: Para, x: Value): Value['shape'] => m.cod ?? x.shape;

/** A one-node rule: op(x, params…) with the given attributes. */
function oneNode(op: string, attrs: (m: Para) => Parameters<OnnxGraph['node']>[2] = () => ({})): OnnxRule {
  return ({ m, theta, x, g }) => {
    const [y] = g.node(op, [need(x, m), ...theta.map((p) => g.weight(p))], attrs(m));
    return { name: y!, shape: same(m, x) };
  };
}

/** Concatenation along the first per-sample axis (ONNX axis 1), leaving empty values out. */
function concat(g: OnnxGraph, parts: readonly Value[], shape: Value['shape']): Value {
  const named = parts.filter((p) => p.name !== null);
  if (named.length === 0) return { name: null, shape };
  if (named.length === 1) return { name: named[0]!.name, shape };
  const [y] = g.node(
    'Concat',
    named.map((p) => p.name!),
    { axis: { i: 1 } },
  );
  return { name: y!, shape };
}

/** Splits axis 1 into parts of the given sizes. */
function split(g: OnnxGraph, m: Para, x: Value, sizes: readonly number[]): string[] {
  if (sizes.some((s) => s === 0)) throw new ExportError(`cannot export layer ${quote(m)} to ONNX: a factor takes an empty input`);
  return g.node('Split', [need(x, m), g.int64('split', sizes)], { axis: { i: 1 } }, sizes.length);
}

// Structure (src/para): composites and the comonoid/monoid maps.
defineOnnxRule('seq', ({ m, theta, x, emit }) => {
  const parts = slices(m.children, theta);
  return m.children.reduce((v, c, i) => emit(c, parts[i]!, v), x);
});
defineOnnxRule('par', ({ m, theta, x, g, emit }) => {
  const parts = slices(m.children, theta);
  const xs = split(
    g,
    m,
    x,
    m.children.map((c) => c.dom![0]!),
  );
  const ys = m.children.map((c, i) => emit(c, parts[i]!, { name: xs[i]!, shape: c.dom! }));
  return concat(g, ys, m.cod!);
});
defineOnnxRule('residual', ({ m, theta, x, g, emit }) => {
  const y = emit(m.children[0]!, theta, x);
  const [s] = g.node('Add', [need(x, m), need(y, m)]);
  return { name: s!, shape: x.shape };
});
defineOnnxRule('copy', ({ m, x, g }) => concat(g, [x, x], m.cod!));
defineOnnxRule('add', ({ m, x, g }) => {
  const half = x.shape[0]! / 2;
  const [a, b] = split(g, m, x, [half, half]);
  const [s] = g.node('Add', [a!, b!]);
  return { name: s!, shape: m.cod! };
});
defineOnnxRule('discard', ({ m }) => ({ name: null, shape: m.cod! }));
/** Identities: id, and dropout (the identity in evaluation mode). */
const identity: OnnxRule = ({ x }) => x;
defineOnnxRule('id', identity);
defineOnnxRule('dropout', identity);

// Layers (src/nn).
/** dense on vectors is Gemm; on [*, …, in] (every position of a sequence) MatMul with Wᵀ, then Add the bias. */
const gemm = oneNode('Gemm', () => ({ transB: { i: 1 } }));
defineOnnxRule('dense', (a) => {
  if (a.m.dom!.length === 1) return gemm(a);
  const { m, theta, x, g } = a;
  const [wt] = g.node('Transpose', [g.weight(theta[0]!)], { perm: { ints: [1, 0] } });
  const [y] = g.node('Add', [g.node('MatMul', [need(x, m), wt!])[0]!, g.weight(theta[1]!)]);
  return { name: y!, shape: m.cod! };
});
defineOnnxRule('sigmoid', oneNode('Sigmoid'));
defineOnnxRule('tanh', oneNode('Tanh'));
defineOnnxRule('relu', oneNode('Relu'));
defineOnnxRule('softplus', oneNode('Softplus'));
/** GELU, tanh approximation: opset 20's Gelu with approximate = "tanh". */
defineOnnxRule(
  'gelu',
  oneNode('Gelu', () => ({ approximate: { s: 'tanh' } })),
);
defineOnnxRule(
  'leaky_relu',
  oneNode('LeakyRelu', (m) => ({ alpha: { f: m.args[0] as number } })),
);
defineOnnxRule(
  'softmax',
  oneNode('Softmax', () => ({ axis: { i: -1 } })),
);

/** conv2d(inC,outC,k,stride,pad) and conv1d: ONNX Conv is the same cross-correlation with weight [O,C,k(,k)]. */
defineOnnxRule(
  'conv2d',
  oneNode('Conv', (m) => {
    const [, , k, s, p] = m.args as number[];
    return { kernel_shape: { ints: [k!, k!] }, strides: { ints: [s!, s!] }, pads: { ints: [p!, p!, p!, p!] } };
  }),
);
defineOnnxRule(
  'conv1d',
  oneNode('Conv', (m) => {
    const [, , k, s, p] = m.args as number[];
    return { kernel_shape: { ints: [k!] }, strides: { ints: [s!] }, pads: { ints: [p!, p!] } };
  }),
);
const pool = (op: string): OnnxRule =>
  oneNode(op, (m) => {
    const [k, s] = m.args as number[];
    return { kernel_shape: { ints: [k!, k!] }, strides: { ints: [s!, s!] } };
  });
defineOnnxRule('maxpool2d', pool('MaxPool'));
defineOnnxRule('avgpool2d', pool('AveragePool'));
defineOnnxRule(
  'flatten',
  oneNode('Flatten', () => ({ axis: { i: 1 } })),
);
/** tokens: [C,H,W] → [H·W,C] is Flatten over the pixels (Reshape to [N,C,H·W]) then Transpose. */
defineOnnxRule('tokens', ({ m, x, g }) => {
  const [C, H, W] = m.dom!;
  const [flat] = g.node('Reshape', [need(x, m), g.int64('shape', [0, C!, H! * W!])]);
  const [y] = g.node('Transpose', [flat!], { perm: { ints: [0, 2, 1] } });
  return { name: y!, shape: [H! * W!, C!] };
});
/** globalavgpool: [C,H,W] → [C] is GlobalAveragePool ([N,C,1,1]) then Flatten. */
defineOnnxRule('globalavgpool', ({ m, x, g }) => {
  const [p] = g.node('GlobalAveragePool', [need(x, m)]);
  const [y] = g.node('Flatten', [p!], { axis: { i: 1 } });
  return { name: y!, shape: m.cod ?? [x.shape[0]!] };
});
