import type { Kernel } from './program.js';
import { WG } from './kernels.js';

// The kernels of the sequence layers (attention, the norms, embedding, RoPE), one thread per
// row or per element; their batched products are the gemm kernel's (kernels.ts).

const guard = (n: string): string => `  if (tid >= ${n}) { return; }`;

/**
 * Backend.attentionSoftmax, a thread per row of a [Tq, Tk] block: softmax(scale·s + bias) over
 * the keys it sees (j ≤ i + qOffset when CAUSAL; qOffset travels as the bits of an i32), the
 * rest 0.
 */
export const attentionSoftmax: Kernel = {
  name: 'attentionSoftmax',
  arrays: [{ name: 's', write: true }, { name: 'bias' }],
  scalars: [
    ['rows', 'u32'],
    ['Tq', 'u32'],
    ['Tk', 'u32'],
    ['heads', 'u32'],
    ['qOffset', 'u32'],
    ['scale', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let i = tid % u.Tq;
  let o = tid * u.Tk;
  var seen = u.Tk;
  if (CAUSAL) { seen = u32(clamp(i32(i) + bitcast<i32>(u.qOffset) + 1, 0, i32(u.Tk))); }
  let bo = ((tid / u.Tq) % u.heads) * u.Tq * u.Tk + i * u.Tk;
  var mx = -inf();
  for (var j = 0u; j < seen; j++) {
    var v = u.scale * ld_s(o + j);
    if (BIAS) { v += ld_bias(bo + j); }
    st_s(o + j, v);
    mx = max(mx, v);
  }
  var z: f32 = 0.0;
  for (var j = 0u; j < seen; j++) { let e = expf(ld_s(o + j) - mx); st_s(o + j, e); z += e; }
  for (var j = 0u; j < seen; j++) { st_s(o + j, ld_s(o + j) / z); }
  for (var j = seen; j < u.Tk; j++) { st_s(o + j, 0.0); }`,
};

/** Backend.attentionSoftmaxBackward, a thread per row: dp ← scale·p ⊙ (dp − ⟨dp, p⟩). */
export const attentionSoftmaxBackward: Kernel = {
  name: 'attentionSoftmaxBackward',
  arrays: [{ name: 'p' }, { name: 'dp', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['n', 'u32'],
    ['scale', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let o = tid * u.n;
  var dot: f32 = 0.0;
  for (var j = 0u; j < u.n; j++) { dot += ld_dp(o + j) * ld_p(o + j); }
  for (var j = 0u; j < u.n; j++) { st_dp(o + j, u.scale * ld_p(o + j) * (ld_dp(o + j) - dot)); }`,
};

/** Backend.layerNorm, a thread per row (two passes: the mean, then the spread about it). */
export const layerNorm: Kernel = {
  name: 'layerNorm',
  arrays: [{ name: 'x' }, { name: 'g' }, { name: 'b' }, { name: 'y', write: true }, { name: 'xhat', write: true }, { name: 'r', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['d', 'u32'],
    ['eps', 'f32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let o = tid * u.d;
  var mu: f32 = 0.0;
  if (CENTRE) {
    for (var j = 0u; j < u.d; j++) { mu += ld_x(o + j); }
    mu /= f32(u.d);
  }
  var ss: f32 = 0.0;
  for (var j = 0u; j < u.d; j++) { let c = ld_x(o + j) - mu; ss += c * c; }
  let s = 1.0 / sqrt(ss / f32(u.d) + u.eps);
  st_r(tid, s);
  for (var j = 0u; j < u.d; j++) {
    let h = (ld_x(o + j) - mu) * s;
    st_xhat(o + j, h);
    var v = ld_g(j) * h;
    if (BIAS) { v += ld_b(j); }
    st_y(o + j, v);
  }`,
};

/** The input part of Backend.layerNormBackward, a thread per row: dx = (ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂))·r. */
export const layerNormBackward: Kernel = {
  name: 'layerNormBackward',
  arrays: [{ name: 'dy' }, { name: 'xhat' }, { name: 'r' }, { name: 'g' }, { name: 'dx', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['d', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.rows')}
  let o = tid * u.d;
  var mg: f32 = 0.0;
  var mgx: f32 = 0.0;
  for (var j = 0u; j < u.d; j++) { let gh = ld_dy(o + j) * ld_g(j); mg += gh; mgx += gh * ld_xhat(o + j); }
  mg = select(0.0, mg / f32(u.d), CENTRE);
  mgx /= f32(u.d);
  let s = ld_r(tid);
  for (var j = 0u; j < u.d; j++) { st_dx(o + j, (ld_dy(o + j) * ld_g(j) - mg - ld_xhat(o + j) * mgx) * s); }`,
};

/** The parameter part of Backend.layerNormBackward, a thread per feature: dg += Σ_rows dy ⊙ x̂ (DG), db += Σ_rows dy (DB). */
export const layerNormParams: Kernel = {
  name: 'layerNormParams',
  arrays: [{ name: 'dy' }, { name: 'xhat' }, { name: 'dg', write: true }, { name: 'db', write: true }],
  scalars: [
    ['rows', 'u32'],
    ['d', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.d')}
  var sg: f32 = 0.0;
  var sb: f32 = 0.0;
  for (var i = 0u; i < u.rows; i++) { let v = ld_dy(i * u.d + tid); sg += v * ld_xhat(i * u.d + tid); sb += v; }
  if (DG) { st_dg(tid, ld_dg(tid) + sg); }
  if (DB) { st_db(tid, ld_db(tid) + sb); }`,
};

/** Backend.rotatePairs, a thread per rotated pair (sequence row, group, pair i). */
export const rotatePairs: Kernel = {
  name: 'rotatePairs',
  arrays: [{ name: 'x', write: true }, { name: 'cos' }, { name: 'sin' }],
  scalars: [
    ['n', 'u32'],
    ['T', 'u32'],
    ['half', 'u32'],
    ['groups', 'u32'],
    ['d', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}
  let i = tid % u.half;
  let q = tid / u.half;
  let row = q / u.groups;
  let at = (row % u.T) * u.half + i;
  let o = row * u.d + 2u * ((q % u.groups) * u.half + i);
  let c = ld_cos(at);
  let sn = select(ld_sin(at), -ld_sin(at), INVERSE);
  let a = ld_x(o);
  let b = ld_x(o + 1u);
  st_x(o, a * c - b * sn);
  st_x(o + 1u, a * sn + b * c);`,
};

/** Backend.gatherRows, a thread per output element. */
export const gatherRows: Kernel = {
  name: 'gatherRows',
  arrays: [{ name: 'ids' }, { name: 'table' }, { name: 'y', write: true }],
  scalars: [
    ['n', 'u32'],
    ['d', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}\n  st_y(tid, ld_table(u32(ld_ids(tid / u.d)) * u.d + tid % u.d));`,
};

/** Backend.scatterRows, a thread per element of dy, added by compare-and-swap (ids repeat). */
export const scatterRows: Kernel = {
  name: 'scatterRows',
  arrays: [{ name: 'dy' }, { name: 'ids' }, { name: 'dt', write: true, atomic: true }],
  scalars: [
    ['n', 'u32'],
    ['d', 'u32'],
  ],
  workgroup: [WG],
  body: `${guard('u.n')}\n  add_dt(u32(ld_ids(tid / u.d)) * u.d + tid % u.d, ld_dy(tid));`,
};
