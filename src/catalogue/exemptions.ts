import { operator } from '../ops/vocabulary.js';

/**
 * The concerns every layer kind is asked about, beside its catalogue entry: each is a rule
 * table keyed by layer kind (src/rule-table.ts) — ONNX_RULES (src/io/onnx/export-rules.ts), TORCH_RULES
 * (src/io/pytorch/rules.ts), DRAW_RULES (src/draw/rules.ts) — and whether the layer computes
 * with kernels only, so that it runs where a device backend keeps its arrays (WebGPU).
 */
export type Concern = 'ONNX export' | 'PyTorch export' | 'drawing' | 'device';

const CELL_STEP =
  "a single step of the cell, run by scan, fold, unfold or bidirectional: ONNX's LSTM/GRU/RNN operators take whole sequences, so a cell alone has no operator (its step as MatMul/Sigmoid/Tanh is not written)";
export const DERIVED =
  'its weights are the coefficients of a basis the end solver derives when the layer is built (Hom_G); an ONNX rule would write the combined matrices as MatMul weights (and import would read back a dense layer, not an equivariant one) — not written yet';
const IRREPS =
  'it computes with irreducible representations (Clebsch–Gordan coefficients, spherical harmonics, per-irrep norms) fixed when the layer is built; an ONNX rule would write them as constants and Einsum products — not written yet';
const MASKED = 'a masked set carries a presence column and divides by a count the data decides; writable as Mul, ReduceSum and Div, not written yet';

/**
 * Every layer kind without a rule for a concern, and why — in this one place.
 * test/catalogue/coverage.test.ts prints the table of every catalogue layer × concern and fails
 * when a layer has no rule and is not listed here, or when an entry here is stale (the kind
 * has a rule after all, or no layer makes it).
 */
/**
 * One reason for every operator layer (src/ops: an ONNX operator by its name, or graph(…) and the operators inside it) a
 * concern has no rule for — a family of 60-odd kinds that share it, so it is given once.
 */
export const OPERATOR_EXEMPTIONS: { readonly [C in Concern]?: string } = {
  'PyTorch export':
    'an ONNX operator as a layer: the PyTorch export writes one torch.nn module per paralens layer and has no rule per operator yet (such a model exports to ONNX)',
  device: 'an operator without a device kernel (its Op.kernelsOnly is false, src/ops): it computes on host arrays',
};

/** Whether a layer kind is an operator layer (OPERATOR_EXEMPTIONS apply to it). */
export const isOperatorKind = (kind: string): boolean => kind === 'graph' || operator(kind) !== undefined;

export const EXEMPTIONS: { readonly [C in Concern]: Readonly<Record<string, string>> } = {
  'ONNX export': {
    fold: "the final state of a scan (ONNX LSTM/GRU/RNN's Y_h output): not written yet",
    mgu: 'ONNX has no MGU operator; as MatMul/Sigmoid/Tanh inside a Loop: not written',
    rnn_cell: CELL_STEP,
    lstm_cell: CELL_STEP,
    gru_cell: CELL_STEP,
    mgu_cell: CELL_STEP,
    stop: 'stop-gradient for truncated BPTT, the identity at inference; only inside the unrolled composite, never exported alone: not written',
    swap: 'exchanges the states of stacked cells (two Slices and a Concat); only inside stack(…): not written',
    unfold: "generation from a state (the anamorphism) needs ONNX Loop with the cell's step inside: not written",
    bilinear: DERIVED,
    conv1d_periodic: DERIVED,
    conv2d_periodic: DERIVED,
    equivariant: DERIVED,
    gated: DERIVED,
    norm_gated: DERIVED,
    set_equivariant: DERIVED,
    message_passing: `${DERIVED}; its neighbourhoods are a graph given in the spec`,
    rope_attention: `${DERIVED}; attention(d,heads,rope), the catalogue's RoPE attention, exports and reads back`,
    irreps_gate: IRREPS,
    irreps_linear: IRREPS,
    irreps_norm: IRREPS,
    tensor_product: IRREPS,
    sh_embedding: IRREPS,
    e3_conv: `${IRREPS}; it also builds the graph of point pairs from the data`,
    displace:
      'it moves point coordinates by learned radial weights of pairwise differences (EGNN), a data-dependent graph; writable with Expand and ReduceSum, not written yet',
    masked_map: MASKED,
    masked_max_pool: MASKED,
    masked_mean_pool: MASKED,
    masked_sum_pool: MASKED,
  },
  'PyTorch export': {
    fold: "the final state of a scan: nn.LSTM's h_n, not written yet as its own module",
    rnn_cell:
      'a single step of the cell, inside scan/fold/unfold: torch.nn has LSTMCell/GRUCell/RNNCell, but paralens exports the sequence layers (nn.LSTM …); not written',
    lstm_cell:
      'a single step of the cell, inside scan/fold/unfold: torch.nn has LSTMCell/GRUCell/RNNCell, but paralens exports the sequence layers (nn.LSTM …); not written',
    gru_cell:
      'a single step of the cell, inside scan/fold/unfold: torch.nn has LSTMCell/GRUCell/RNNCell, but paralens exports the sequence layers (nn.LSTM …); not written',
    mgu_cell: 'no torch.nn MGU: mgu (the sequence layer) is exported as a module of its own; the cell alone is not',
    stop: 'stop-gradient for truncated BPTT (detach); only inside the unrolled composite: not written',
    swap: 'exchanges the states of stacked cells; only inside stack(…): not written',
    unfold: 'generation from a state (a Python loop over the cell): not written',
    reparam: 'a parameter map (cubic, linear) has no torch.nn form; the tie of tied(f) is exported as one shared Parameter',
    e3_conv: 'the e3nn layers have no PyTorch rule yet (e3nn itself is not installed on these machines to check one against)',
    irreps_linear: 'the e3nn layers have no PyTorch rule yet (e3nn itself is not installed on these machines to check one against)',
    irreps_gate: 'the e3nn layers have no PyTorch rule yet (e3nn itself is not installed on these machines to check one against)',
    irreps_norm: 'the e3nn layers have no PyTorch rule yet (e3nn itself is not installed on these machines to check one against)',
    sh_embedding: 'the e3nn layers have no PyTorch rule yet (e3nn itself is not installed on these machines to check one against)',
    tensor_product: 'the e3nn layers have no PyTorch rule yet (e3nn itself is not installed on these machines to check one against)',
    displace: 'used only inside the N-body task with e3_conv, which has no PyTorch rule either',
  },
  drawing: {},
  device: {
    stop: 'exchanges or stops the states of stacked cells, only inside recurrent layers, which have no device kernels yet (no device test of its own)',
    swap: 'exchanges or stops the states of stacked cells, only inside recurrent layers, which have no device kernels yet (no device test of its own)',
    bidirectional: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    fold: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    gru: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    gru_cell: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    lstm: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    lstm_cell: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    mgu: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    mgu_cell: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    rnn: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    rnn_cell: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    scan: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    unfold: 'no WebGPU recurrent kernels yet: training it on the device exits 2 with E_DEVICE naming the layer',
    attention: 'with relative or absolute positions the bias or the position table is added on host arrays (rope and none run on a device)',
    adapter: 'computes with gemm only, but is not yet declared kernels-only (not checked on a device)',
    leaky_relu: 'an element loop on host arrays: the backends have no leaky unary kernel',
    globalavgpool: 'a mean per channel in a host loop: no kernel yet',
    dropout: 'draws its mask from the seeded host RNG (ctx.rng), element by element',
    bayes_dense: 'draws ε from the seeded host RNG (ctx.rng) for W = μ + softplus(ρ)·ε',
    map: 'its own work is a reshape around f, but the device check does not open it yet',
    masked_map: 'copies the mask column around f on host arrays',
    sum_pool: 'host loops over the set axis',
    mean_pool: 'host loops over the set axis',
    max_pool: 'host loops over the set axis (and the argmax for the pullback)',
    masked_sum_pool: 'host loops over the set axis, reading the mask column',
    masked_mean_pool: 'host loops over the set axis, reading the mask column',
    masked_max_pool: 'host loops over the set axis, reading the mask column',
    reparam: 'the parameter map r runs on host arrays before f',
    tied: 'the parameter map of the tie runs on host arrays before f',
    equivariant: 'W = Σ coef_k·basis_k is assembled on the host from the sparse derived basis',
    gated: 'gates per block of the representation, in host loops',
    bilinear: 'x⊗x per block, in host loops',
    norm_gated: 'norms and gates per block, in host loops',
    set_equivariant: 'the mixers are host arrays (Float64Array) applied with host loops',
    message_passing: 'the mixers are host arrays (Float64Array) applied with host loops',
    conv1d_periodic: 'gathers along a host neighbour map (circular padding), then loops',
    conv2d_periodic: 'gathers along a host neighbour map (circular padding), then loops',
    rope_attention: 'projections by gemm, but the rotation and the softmax are host loops',
    e3_conv: 'host loops over the pairs of points and the Clebsch–Gordan paths',
    irreps_linear: 'per-ℓ blocks in host loops',
    irreps_gate: 'per-block gates in host loops',
    irreps_norm: 'per-copy norms in host loops',
    sh_embedding: 'spherical harmonics of every pair in host loops',
    tensor_product: 'Clebsch–Gordan contractions in host loops',
    displace: 'host loops over the points',
  },
};
