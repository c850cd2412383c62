/**
 * The concerns every layer kind is asked about, beside its catalogue entry: each is a rule
 * table keyed by layer kind (src/rule-table.ts) — ONNX_RULES (src/io/onnx.ts), TORCH_RULES
 * (src/io/pytorch/rules.ts), DRAW_RULES (src/draw/rules.ts) — and whether the layer computes
 * with kernels only, so that it runs where a device backend keeps its arrays (WebGPU).
 */
export type Concern = 'ONNX export' | 'PyTorch export' | 'drawing' | 'device';

/**
 * Every layer kind without a rule for a concern, and why — in this one place.
 * test/catalogue/coverage.test.ts prints the table of every catalogue layer × concern and fails
 * when a layer has no rule and is not listed here, or when an entry here is stale (the kind
 * has a rule after all, or no layer makes it).
 */
export const EXEMPTIONS: { readonly [C in Concern]: Readonly<Record<string, string>> } = {
  'ONNX export': {
    fold: "the final state of a scan (ONNX LSTM/GRU/RNN's Y_h output): not written yet",
    mgu: 'ONNX has no MGU operator; as MatMul/Sigmoid/Tanh inside a Loop: not written',
    rnn_cell:
      "a single step of the cell, run by scan, fold, unfold or bidirectional: ONNX's LSTM/GRU/RNN operators take whole sequences, so a cell alone has no operator (its step as MatMul/Sigmoid/Tanh is not written)",
    lstm_cell:
      "a single step of the cell, run by scan, fold, unfold or bidirectional: ONNX's LSTM/GRU/RNN operators take whole sequences, so a cell alone has no operator (its step as MatMul/Sigmoid/Tanh is not written)",
    gru_cell:
      "a single step of the cell, run by scan, fold, unfold or bidirectional: ONNX's LSTM/GRU/RNN operators take whole sequences, so a cell alone has no operator (its step as MatMul/Sigmoid/Tanh is not written)",
    mgu_cell:
      "a single step of the cell, run by scan, fold, unfold or bidirectional: ONNX's LSTM/GRU/RNN operators take whole sequences, so a cell alone has no operator (its step as MatMul/Sigmoid/Tanh is not written)",
    stop: 'stop-gradient for truncated BPTT, the identity at inference; only inside the unrolled composite, never exported alone: not written',
    swap: 'exchanges the states of stacked cells (two Slices and a Concat); only inside stack(…): not written',
    unfold: "generation from a state (the anamorphism) needs ONNX Loop with the cell's step inside: not written",
    adapter: 'not written yet: one MatMul by Wᵀ (the round trips of issue 29 add it)',
    bayes_dense: 'stochastic in training; its evaluation map is Gemm with the means μ, which a re-import could not tell from dense — not written',
    map: "f on every element needs a Reshape to [B·n, …] around f's graph and back; not written yet",
    masked_map: 'f on the features of every slot needs Slice/Concat around the mask column besides the Reshape of map; not written yet',
    sum_pool: 'not written yet: ReduceSum over the set axis',
    mean_pool: 'not written yet: ReduceMean over the set axis',
    max_pool: 'not written yet: ReduceMax over the set axis',
    masked_sum_pool: 'the mask column weighs the elements (Mul, then ReduceSum); not written yet',
    masked_mean_pool: 'the mask column weighs the elements and counts them (empty set → 0); not written yet',
    masked_max_pool: 'absent elements must never win the max (Where with −∞, empty set → 0); not written yet',
    reparam:
      'ONNX holds plain tensors: the graph would carry θ = r(φ), losing φ and the map r; tied(f), the one tie ONNX keeps as a shared initializer, has a rule',
    equivariant: 'its weight is coefficients over a derived basis; an ONNX graph holds the assembled W only, losing the constraint the basis keeps',
    gated: 'gate scalars index the non-scalar blocks of a representation: written out as Slice/Mul per block, not yet',
    bilinear: 'x ⊕ x⊗x per representation block: not written yet (an Einsum per block)',
    norm_gated: 'a norm and a gate per block of the representation: not written yet',
    set_equivariant: 'the S(n) end gives mixers over the set axis (Σ_b M_b·X·Λ_bᵀ); not written yet',
    message_passing: 'graph mixers derived from the automorphisms of the graph, as set_equivariant; not written yet',
    conv1d_periodic: 'Conv after circular padding (ONNX Pad has mode wrap only from opset 19 on); not written yet',
    conv2d_periodic: 'Conv after circular padding (ONNX Pad has mode wrap only from opset 19 on); not written yet',
    rope_attention: "attention(d,heads,rope) has a rule; rope_attention's period P and half layout have none yet",
    e3_conv: 'E(3) message passing over the pairs of a point cloud (spherical harmonics, Clebsch–Gordan paths): not written',
    irreps_linear: 'per-ℓ weights over irreps blocks: not written yet',
    irreps_gate: 'gates per irreps block: not written yet',
    irreps_norm: 'a norm per irrep copy: not written yet',
    sh_embedding: 'spherical harmonics and radial basis of every pair of points: not written',
    tensor_product: 'Clebsch–Gordan paths l1⊗l2→l3 with learned weights: not written',
    displace: 'positions moved along a predicted vector: not written yet',
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
