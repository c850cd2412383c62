/**
 * The layers of the catalogue that do not make the ONNX round trip (export, then import, gives
 * the same function — test/io/onnx-roundtrip.test.ts checks every other one), each with why.
 * All of them are refused by export with a message naming them, never written wrong; each could
 * be written in ONNX's operators, which is work not yet done. docs/onnx.md shows this list.
 */
const DERIVED =
  'its weights are the coefficients of a basis the end solver derives when the layer is built (Hom_G); an ONNX rule would write the combined matrices as MatMul weights (and import would read back a dense layer, not an equivariant one) — not written yet';
const IRREPS =
  'it computes with irreducible representations (Clebsch–Gordan coefficients, spherical harmonics, per-irrep norms) fixed when the layer is built; an ONNX rule would write them as constants and Einsum products — not written yet';
const MASKED = 'a masked set carries a presence column and divides by a count the data decides; writable as Mul, ReduceSum and Div, not written yet';

export const ONNX_ROUND_TRIP_EXEMPT: Readonly<Record<string, string>> = {
  bilinear: DERIVED,
  conv1d_periodic: DERIVED,
  conv2d_periodic: DERIVED,
  emlp: DERIVED,
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
};
