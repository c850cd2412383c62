import { ruleTable } from '../../rule-table.js';
import { recurrentRules } from './export-recurrent.js';
import { quote } from '../../errors.js';
import { LAYER_OPERATORS, operator } from '../../ops/vocabulary.js';
import { parseAttrs } from '../../ops/op.js';
import type { OpGraph } from '../../ops/graph.js';
import type { Para } from '../../para/para.js';
import { ExportError } from '../errors.js';
import { emitOp, tanhGelu } from './export-ops.js';
import { sequenceRules } from './export-sequence.js';
import type { NamedParam, OnnxGraph, Value } from './graph-proto.js';
import { ONNX_ROUND_TRIP_EXEMPT } from './exempt.js';
import { need } from './rule.js';
import type { OnnxRule } from './rule.js';

export type { OnnxRule, OnnxRuleInput } from './rule.js';

/**
 * How each kind of morphism becomes ONNX nodes. A rule gets the morphism (domain fixed),
 * its slice of θ, the input value and the graph, and returns the output value; `emit`
 * exports a sub-morphism, so the rules for seq, par and residual are the functor from
 * Para's composites to the graph: ∘ ↦ chaining, ⊗ ↦ Split/Concat along axis 1, the
 * skip connection ↦ Add. The rules are one explicit list keyed by layer kind (ONNX_RULES);
 * a user's own layer adds its rule with `defineOnnxRule`.
 */
/** Each child's slice of θ (seq and par list their children's parameters one after another). */
function slices(children: readonly Para[], theta: readonly NamedParam[]): (readonly NamedParam[])[] {
  let at = 0;
  return children.map((c) => theta.slice(at, (at += c.params.length)));
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

/** A pool over the set axis (ONNX axis 1): [B, n, d] → [B, d]. */
function setPool(op: string): OnnxRule {
  return ({ m, x, g }) => ({
    name:
      g.opset >= 18 || op === 'ReduceSum'
        ? g.one(op, [need(x, m), g.int64('axes', [1])], { keepdims: { i: 0 } })
        : g.one(op, [need(x, m)], { axes: { ints: [1] }, keepdims: { i: 0 } }),
    shape: m.cod!,
  });
}

/** Identities: id, and dropout (the identity in evaluation mode). */
const identity: OnnxRule = ({ x }) => x;

/** dense on vectors is Gemm; on [*, …, in] (every position of a sequence) MatMul with Wᵀ, then Add the bias. */
const gemm = oneNode('Gemm', () => ({ transB: { i: 1 } }));

/** conv2d(inC,outC,k,stride,pad) and conv1d: ONNX Conv is the same cross-correlation with weight [O,C,k(,k)]. */
const conv = (rank: 1 | 2): OnnxRule =>
  oneNode('Conv', (m) => {
    const [, , k, s, p] = m.args as number[];
    const r = (v: number): number[] => Array(rank).fill(v);
    return { kernel_shape: { ints: r(k!) }, strides: { ints: r(s!) }, pads: { ints: r(p!).concat(r(p!)) } };
  });

const pool = (op: string): OnnxRule =>
  oneNode(op, (m) => {
    const [k, s] = m.args as number[];
    return { kernel_shape: { ints: [k!, k!] }, strides: { ints: [s!, s!] } };
  });

/** An operator as a layer (`Erf`, `Clip(max(6))`): its node, at the graph's opset. */
const operatorLayer: OnnxRule = ({ m, x, g }) => {
  const def = operator(m.kind)!;
  const op = def.make(parseAttrs(def, m.args as string[]));
  return { name: emitOp(g, op, [need(x, m)])[0]!, shape: m.cod! };
};

/** graph(…): its boxes in order — parameters and stored constants as initializers, literal constants as constants, operators and layers by their rules. */
const graphRule: OnnxRule = ({ m, theta, x, g, emit }) => {
  const graph = m as OpGraph;
  const names: (string | null)[] = [need(x, m)];
  const shapes = graph.shapes!;
  let t = 0;
  for (const n of graph.nodes) {
    switch (n.kind) {
      case 'param':
        names[n.output] = g.weight(theta[t++]!);
        break;
      case 'constant':
        names[n.output] = n.stored ? g.weight(theta[t++]!) : g.float(graph.names[n.output]!, n.value.data, n.value.shape);
        break;
      case 'layer': {
        const k = n.layer.params.length;
        names[n.output] = emit(n.layer, theta.slice(t, (t += k)), { name: names[n.input]!, shape: shapes[n.input]!.slice(1) as number[] }).name;
        break;
      }
      case 'op': {
        const outs = emitOp(
          g,
          n.op,
          n.inputs.map((v) => names[v]!),
        );
        n.outputs.forEach((v, i) => (names[v] = outs[i]!));
        break;
      }
    }
  }
  return { name: names[graph.output]!, shape: m.cod! };
};

/** A morphism defined as an abbreviation (transformer) or traced from a forward (layer(…)): its body. */
const bodyRule: OnnxRule = ({ m, theta, x, emit }) => emit((m as unknown as { body: Para }).body, theta, x);

/** The built-in rules of Para's structure, src/nn, the perspectives' layers and src/ops, by the kind of morphism each exports. */
const builtInRules: Readonly<Record<string, OnnxRule>> = {
  // structure (src/para): composites and the comonoid/monoid maps
  seq: ({ m, theta, x, emit }) => {
    const parts = slices(m.children, theta);
    return m.children.reduce((v, c, i) => emit(c, parts[i]!, v), x);
  },
  par: ({ m, theta, x, g, emit }) => {
    const parts = slices(m.children, theta);
    const xs = split(
      g,
      m,
      x,
      m.children.map((c) => c.dom![0]!),
    );
    const ys = m.children.map((c, i) => emit(c, parts[i]!, { name: xs[i]!, shape: c.dom! }));
    return concat(g, ys, m.cod!);
  },
  residual: ({ m, theta, x, g, emit }) => {
    const y = emit(m.children[0]!, theta, x);
    return { name: g.one('Add', [need(x, m), need(y, m)]), shape: x.shape };
  },
  copy: ({ m, x, g }) => concat(g, [x, x], m.cod!),
  add: ({ m, x, g }) => {
    const half = x.shape[0]! / 2;
    const [a, b] = split(g, m, x, [half, half]);
    return { name: g.one('Add', [a!, b!]), shape: m.cod! };
  },
  discard: ({ m }) => ({ name: null, shape: m.cod! }),
  id: identity,
  dropout: identity,
  // layers (src/nn)
  dense: (a) => {
    if (a.m.dom!.length === 1) return gemm(a);
    const { m, theta, x, g } = a;
    const wt = g.one('Transpose', [g.weight(theta[0]!)], { perm: { ints: [1, 0] } });
    return { name: g.one('Add', [g.one('MatMul', [need(x, m), wt]), g.weight(theta[1]!)]), shape: m.cod! };
  },
  sigmoid: oneNode('Sigmoid'),
  tanh: oneNode('Tanh'),
  relu: oneNode('Relu'),
  softplus: oneNode('Softplus'),
  /** GELU, tanh approximation: opset 20's Gelu with approximate = "tanh", written out before. */
  gelu: ({ m, x, g }) => ({ name: g.opset >= 20 ? g.one('Gelu', [need(x, m)], { approximate: { s: 'tanh' } }) : tanhGelu(g, need(x, m)), shape: same(m, x) }),
  leaky_relu: oneNode('LeakyRelu', (m) => ({ alpha: { f: m.args[0] as number } })),
  softmax: oneNode('Softmax', () => ({ axis: { i: -1 } })),
  conv2d: conv(2),
  conv1d: conv(1),
  maxpool2d: pool('MaxPool'),
  avgpool2d: pool('AveragePool'),
  flatten: oneNode('Flatten', () => ({ axis: { i: 1 } })),
  /** globalavgpool: [C,H,W] → [C] is GlobalAveragePool ([N,C,1,1]) then Flatten. */
  globalavgpool: ({ m, x, g }) => ({ name: g.one('Flatten', [g.one('GlobalAveragePool', [need(x, m)])], { axis: { i: 1 } }), shape: m.cod ?? [x.shape[0]!] }),
  ...sequenceRules,
  /** adapter(p,q): x·Wᵀ, no bias. */
  adapter: ({ m, theta, x, g }) => ({
    name: g.one('MatMul', [need(x, m), g.one('Transpose', [g.weight(theta[0]!)], { perm: { ints: [1, 0] } })]),
    shape: m.cod!,
  }),
  /** bayes_dense in evaluation: the dense layer of the means (the sampling is training's). */
  bayes_dense: ({ m, theta, x, g }) => ({ name: g.one('Gemm', [need(x, m), g.weight(theta[0]!), g.weight(theta[2]!)], { transB: { i: 1 } }), shape: m.cod! }),
  /** The pools over a set's axis (axis 1): ReduceSum, ReduceMean, ReduceMax. */
  sum_pool: setPool('ReduceSum'),
  mean_pool: setPool('ReduceMean'),
  max_pool: setPool('ReduceMax'),
  /** map(f,n): f on every element, the set's axis folded into the batch ([B, n, …] → [B·n, …] and back). */
  map: ({ m, theta, x, g, emit }) => {
    const f = m.children[0]!;
    const n = m.dom![0]!;
    const flat = g.one('Reshape', [need(x, m), g.int64('shape', [-1, ...m.dom!.slice(1)])]);
    const y = emit(f, theta, { name: flat, shape: m.dom!.slice(1) });
    return { name: g.one('Reshape', [need(y, f), g.int64('shape', [-1, n, ...m.cod!.slice(1)])]), shape: m.cod! };
  },
  // operator graphs and the operators that are layers (src/ops)
  graph: graphRule,
  ...Object.fromEntries(LAYER_OPERATORS.map((d) => [d.name, operatorLayer])),
};

/** Every family's ONNX export rules, listed here (the rule table of this concern: src/rule-table.ts; nothing registers itself by being imported). */
export const ONNX_RULES = ruleTable<OnnxRule>('ONNX export', [builtInRules, recurrentRules]);

/** Adds the ONNX rule of a layer defined outside paralens (call it before exporting). */
export function defineOnnxRule(kind: string, rule: OnnxRule): void {
  ONNX_RULES.define(kind, rule);
}

export function onnxKinds(): string[] {
  return ONNX_RULES.kinds();
}

export function onnxRule(m: Para): OnnxRule {
  const r = ONNX_RULES.get(m.kind);
  if (r) return r;
  // an abbreviation or a traced layer of a user: its body
  if ((m as { body?: unknown }).body) return bodyRule;
  const why = Object.hasOwn(ONNX_ROUND_TRIP_EXEMPT, m.kind) ? ONNX_ROUND_TRIP_EXEMPT[m.kind] : undefined;
  throw new ExportError(
    `cannot export layer ${quote(m)} to ONNX: ${why ?? `no ONNX rule for kind ${quote(m.kind)}`}; docs/onnx.md lists the layers that export (onnxKinds() in code)`,
  );
}
