import { OPERATOR_LAYER_EXAMPLES } from '../ops/layer-examples.js';

/**
 * One example per layer that spec strings can name, shared by the catalogue's tests: every
 * layer must be listed here (test/catalogue/all-layers.test.ts fails otherwise); each passes a
 * float64 gradient check there, and test/catalogue/coverage.test.ts reads the rules of every
 * concern off it. `dom` is the per-sample input shape; `training` marks the stochastic layers
 * (checked with a fixed noise draw); `ids` the layers that read token ids below that bound.
 */
export interface LayerExample {
  readonly spec: string;
  readonly dom: number[];
  readonly training?: boolean;
  readonly ids?: number;
}

export const EXAMPLES: Readonly<Record<string, LayerExample>> = {
  adapter: { spec: 'adapter(4,2)', dom: [4] },
  attention: { spec: 'attention(6,3,rope)', dom: [5, 6] },
  add: { spec: 'add(3)', dom: [6] },
  avgpool2d: { spec: 'avgpool2d(2)', dom: [2, 4, 4] },
  bayes_dense: { spec: 'bayes_dense(3,2)', dom: [3], training: true },
  bilinear: { spec: 'bilinear(SO(2),V)', dom: [2] },
  conv1d: { spec: 'conv1d(2,3,3,1,1)', dom: [2, 7] },
  conv1d_periodic: { spec: 'conv1d_periodic(6,2,2,3)', dom: [2, 6] },
  conv2d: { spec: 'conv2d(2,3,3,2,1)', dom: [2, 5, 5] },
  conv2d_periodic: { spec: 'conv2d_periodic(4,4,1,2,3)', dom: [1, 4, 4] },
  copy: { spec: 'copy(3)', dom: [3] },
  dense: { spec: 'dense(3,4)', dom: [3] },
  discard: { spec: 'discard(3) @ id(2)', dom: [5] },
  displace: { spec: 'displace(3)', dom: [3, 6] },
  dropout: { spec: 'dropout(0.3)', dom: [6], training: true },
  embedding: { spec: 'embedding(5,3)', dom: [4], ids: 5 },
  e3_conv: { spec: 'e3_conv(3,1x0e+1x1o,2x0e+1x1o,1x0e+1x1o,1)', dom: [3, 7] },
  emlp: { spec: 'emlp(SO(2),V,2V,T(0),1)', dom: [2] },
  equivariant: { spec: 'equivariant(S(4),V,V)', dom: [4] },
  flatten: { spec: 'flatten', dom: [2, 3, 3] },
  gated: { spec: 'gated(SO(2),V+T(0))', dom: [4] },
  gelu: { spec: 'gelu', dom: [5] },
  globalavgpool: { spec: 'globalavgpool', dom: [3, 4, 4] },
  id: { spec: 'id(3)', dom: [3] },
  layernorm: { spec: 'layernorm(4)', dom: [3, 4] },
  irreps_gate: { spec: 'irreps_gate(2x0e,1x1o)', dom: [6] },
  irreps_linear: { spec: 'irreps_linear(2x0e+1x1o,1x0e+2x1o)', dom: [5] },
  irreps_norm: { spec: 'irreps_norm(1x0e+1x1o)', dom: [4] },
  leaky_relu: { spec: 'leaky_relu(0.1)', dom: [5] },
  map: { spec: 'map(dense(2,3) >> tanh,4)', dom: [4, 2] },
  masked_map: { spec: 'masked_map(dense(2,3),4)', dom: [4, 3] },
  masked_max_pool: { spec: 'masked_max_pool', dom: [4, 3] },
  masked_mean_pool: { spec: 'masked_mean_pool', dom: [4, 3] },
  masked_sum_pool: { spec: 'masked_sum_pool', dom: [4, 3] },
  max_pool: { spec: 'max_pool', dom: [4, 3] },
  maxpool2d: { spec: 'maxpool2d(2)', dom: [2, 4, 4] },
  mean_pool: { spec: 'mean_pool', dom: [4, 3] },
  norm_gated: { spec: 'norm_gated(SO(3),V+T(0))', dom: [4] },
  message_passing: { spec: 'message_passing(cycle(5),2,3)', dom: [5, 2] },
  relu: { spec: 'relu', dom: [5] },
  reparam: { spec: 'reparam(dense(3,3) >> tanh >> dense(3,3), tie((0,2)))', dom: [3] },
  residual: { spec: 'residual(dense(3,3) >> tanh)', dom: [3] },
  rmsnorm: { spec: 'rmsnorm(4)', dom: [4] },
  rope_attention: { spec: 'rope_attention(4,4)', dom: [4, 4] },
  set_equivariant: { spec: 'set_equivariant(4,2,3)', dom: [4, 2] },
  sh_embedding: { spec: 'sh_embedding(3,2,2,2.5)', dom: [3, 3] },
  sigmoid: { spec: 'sigmoid', dom: [5] },
  softmax: { spec: 'softmax', dom: [4] },
  softplus: { spec: 'softplus', dom: [5] },
  sum_pool: { spec: 'sum_pool', dom: [4, 3] },
  tanh: { spec: 'tanh', dom: [5] },
  tied: { spec: 'tied(embedding(5,4) >> transformer(4,2,6,relative) >> dense(4,5))', dom: [3], ids: 5 },
  transformer: { spec: 'transformer(4,2,6,absolute(5))', dom: [5, 4] },
  tensor_product: { spec: 'tensor_product(1x0e+1x1o,1x1o,1x0e+1x1e)', dom: [7] },
  rnn: { spec: 'rnn(3,4)', dom: [5, 3] },
  lstm: { spec: 'lstm(3,4)', dom: [5, 3] },
  gru: { spec: 'gru(3,4)', dom: [5, 3] },
  mgu: { spec: 'mgu(3,4)', dom: [5, 3] },
  rnn_cell: { spec: 'rnn_cell(3,4)', dom: [7] },
  lstm_cell: { spec: 'lstm_cell(3,4)', dom: [11] },
  gru_cell: { spec: 'gru_cell(3,4)', dom: [7] },
  mgu_cell: { spec: 'mgu_cell(3,4)', dom: [7] },
  scan: { spec: 'scan(dense(5,5) >> tanh,2)', dom: [4, 3] },
  fold: { spec: 'fold(gru_cell(3,2))', dom: [4, 3] },
  unfold: { spec: 'unfold(lstm_cell(3,3),4)', dom: [9] },
  bidirectional: { spec: 'bidirectional(gru(3,2))', dom: [4, 3] },
  stack: { spec: 'scan(stack(rnn_cell(3,4),mgu_cell(4,2)))', dom: [4, 3] },
  swap: { spec: 'swap(2,3) >> dense(5,2)', dom: [5] },
  // stop's pullback is zero by design (truncated BPTT), not its derivative: checked where its input is held fixed
  stop: { spec: 'stop(3) >> dense(3,2)', dom: [3], ids: 4 },
  // the operator lenses that are layers, and graph(…)
  ...OPERATOR_LAYER_EXAMPLES,
};
