import { Defined } from '../para/definition.js';
import type { Para } from '../para/para.js';
import { LAYER_OPERATORS } from '../ops/vocabulary.js';
import { ruleTable } from '../rule-table.js';
import type { RuleFamily } from '../rule-table.js';
import { recurrentInfo } from '../nn/recurrent/index.js';
import { attentionLayout, box, dot, framed, layerBox, parallel, residualLayout, sequential, wire } from './layout.js';
import type { Diagram, LayoutOptions } from './layout.js';
import { recurrentLayout } from './recurrent-layout.js';

/**
 * How each layer kind appears in a string diagram (the drawing concern's rule table,
 * src/rule-table.ts). A rule gets the morphism and `layout`, which draws a sub-morphism, so
 * the rules for seq, par and residual are the functor from Para's composites to pictures:
 * ∘ ↦ side by side, ⊗ ↦ stacked, the skip connection ↦ a wire around the body.
 */
export type DrawRule = (f: Para, layout: (child: Para) => Diagram, opts: LayoutOptions) => Diagram;

/** Para's structure: the composites as operations on pictures; id a bare wire; copy, add, discard dots. */
const structure: RuleFamily<DrawRule> = {
  seq: (f, layout) => sequential([...f.children], f.children.map(layout)),
  par: (f, layout) => parallel(f.children.map(layout)),
  residual: (f, layout) => residualLayout(f.children[0]!, layout(f.children[0]!)),
  id: () => wire(),
  copy: () => dot('copy'),
  add: () => dot('add'),
  discard: () => dot('discard'),
};

/** A named composite (Defined): its expansion inside a dashed frame that carries the name. */
const expansion: DrawRule = (f, layout) => framed(String(f), layout(f.children[0]!));

/** Layers whose inside the picture opens: the transformer block's expansion, attention's heads. */
const opened: RuleFamily<DrawRule> = {
  transformer: expansion,
  attention: (f) => attentionLayout(f),
};

/**
 * Layers drawn as one box labelled with their spec string, their parameters entering from
 * above. For the layers that take a morphism argument (map, masked_map, reparam, tied) the
 * label is the whole spec, argument included; the box is not opened.
 */
const BOXED: readonly string[] = [
  // src/nn
  ...['dense', 'sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'leaky_relu', 'softmax'],
  ...['conv1d', 'conv2d', 'maxpool2d', 'avgpool2d', 'flatten', 'globalavgpool'],
  ...['embedding', 'layernorm', 'rmsnorm', 'tied', 'reparam'],
  // src/nn/markov, src/nn/natural, src/nn/colimit
  ...['dropout', 'bayes_dense', 'adapter', 'map', 'masked_map'],
  ...['sum_pool', 'mean_pool', 'max_pool', 'masked_sum_pool', 'masked_mean_pool', 'masked_max_pool'],
  // src/nn/equivariant
  ...['equivariant', 'gated', 'bilinear', 'norm_gated', 'set_equivariant', 'message_passing', 'conv1d_periodic', 'conv2d_periodic'],
  ...['rope_attention', 'e3_conv', 'irreps_linear', 'irreps_gate', 'irreps_norm', 'sh_embedding', 'tensor_product', 'displace'],
  // the lenses e3_conv is composed of (its expansion, drawn when the box is opened)
  ...['cloud_edges', 'node_attributes', 'steerable', 'aggregate', 'transpose'],
  // src/nn/recurrent: the cells and the plumbing of their state
  ...['rnn_cell', 'lstm_cell', 'gru_cell', 'mgu_cell', 'swap', 'stop'],
];
/**
 * A recurrent layer: its cell with the state wire looping back (the algebra's diagram), or with
 * `unroll` its unrolled composite; the cells themselves (and stack, swap, stop) are boxes.
 */
const recurrentRule: DrawRule = (f, layout, opts) => {
  const info = recurrentInfo(f);
  return info && info.role !== 'cell' ? recurrentLayout(f, info, { box, framed, parallel, layout }, opts.unroll) : layerBox(f);
};
const recurrent: RuleFamily<DrawRule> = ['rnn', 'lstm', 'gru', 'mgu', 'scan', 'fold', 'unfold', 'bidirectional'].map((kind) => [kind, recurrentRule] as const);

const boxes: RuleFamily<DrawRule> = BOXED.map((kind) => [kind, (f: Para) => layerBox(f)] as const);

/** src/ops: an operator graph and every operator that is a layer (Erf, Clip(max(6)), …), each a box with its spec. */
const operators: RuleFamily<DrawRule> = ['graph', ...LAYER_OPERATORS.map((d) => d.name)].map((kind) => [kind, (f: Para) => layerBox(f)] as const);

/** Every family's drawing rules, listed here (nothing registers itself by being imported). */
export const DRAW_RULES = ruleTable<DrawRule>('drawing', [structure, opened, recurrent, boxes, operators]);

/**
 * Lays out a morphism as a string diagram by the rule of its kind. A kind without a rule (a
 * layer defined outside paralens) is still drawn: a named composite as its framed expansion,
 * anything else as a box — a picture never fails.
 */
export function layout(f: Para, opts: LayoutOptions = {}): Diagram {
  const rule = DRAW_RULES.get(f.kind) ?? (f instanceof Defined ? expansion : layerBox);
  return rule(f, (g) => layout(g, opts), opts);
}
