import type { UnaryOp } from '../backend.js';

/** Op codes of the WGSL kernels, by position (the same order as the wasm kernels'). */
const OPS: readonly UnaryOp[] = ['identity', 'sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'exp', 'neg', 'square'];
export const opCode = (op: UnaryOp): number => OPS.indexOf(op);

/**
 * f(x) and f′(x) in WGSL with the wasm kernels' formulas (src/tensor/wasm/assembly/vmath.ts:
 * Cephes' single-precision exp and tanh), not WGSL's built-in exp and tanh, whose accuracy the
 * spec leaves loose (exp: 3 + 2|x| ulp). NaN and ∞ are tested on the bits: WGSL lets a
 * compiler assume that floats are finite.
 */
export const MATH = /* wgsl */ `
// ∞ from its bits at run time (a constant expression may not overflow)
var<private> INF_BITS: u32 = 0x7f800000u;
fn inf() -> f32 { return bitcast<f32>(INF_BITS); }
fn isNan(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }
fn isFinite(x: f32) -> bool { return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u; }
fn expf(x0: f32) -> f32 {
  if (isNan(x0)) { return x0; }
  if (x0 > 88.72283) { return inf(); }
  let big = x0 > 88.0;
  var x = select(x0, x0 - 0.6931471805599453, big);
  x = clamp(x, -87.33654, 88.37626);
  let fx = round(x * 1.44269504088896341);
  x = x - fx * 0.693359375;
  x = x - fx * -2.12194440e-4;
  var y: f32 = 1.9875691500e-4;
  y = y * x + 1.3981999507e-3;
  y = y * x + 8.3334519073e-3;
  y = y * x + 4.1665795894e-2;
  y = y * x + 1.6666665459e-1;
  y = y * x + 5.0000001201e-1;
  y = y * x * x + x + 1.0;
  let r = y * bitcast<f32>(u32(i32(fx) + 127) << 23u);
  return select(r, r + r, big);
}
fn sigmoidf(x: f32) -> f32 { return 1.0 / (1.0 + expf(-x)); }
fn tanhf(x: f32) -> f32 {
  let ax = abs(x);
  if (ax < 0.625) {
    let z = x * x;
    var p: f32 = -5.70498872745e-3;
    p = p * z + 2.06390887954e-2;
    p = p * z - 5.37397155531e-2;
    p = p * z + 1.33314422036e-1;
    p = p * z - 3.33332819422e-1;
    return x + x * z * p;
  }
  let t = 1.0 - 2.0 / (expf(ax + ax) + 1.0);
  return select(t, -t, x < 0.0);
}
// log(1 + t) for t in [0, 1]: log of the rounded sum, corrected by t / ((1 + t) − 1)
fn log1pf(t: f32) -> f32 {
  let u = 1.0 + t;
  if (u == 1.0) { return t; }
  return log(u) * (t / (u - 1.0));
}
fn geluInner(x: f32) -> f32 { return 0.7978845608028654 * (x + 0.044715 * x * x * x); }
fn apply(op: u32, x: f32) -> f32 {
  switch (op) {
    case 1u: { return sigmoidf(x); }
    case 2u: { return tanhf(x); }
    case 3u: { return select(0.0, x, x > 0.0); }
    case 4u: { return 0.5 * x * (1.0 + tanhf(geluInner(x))); }
    case 5u: { return max(x, 0.0) + log1pf(expf(-abs(x))); }
    case 6u: { return expf(x); }
    case 7u: { return -x; }
    case 8u: { return x * x; }
    default: { return x; }
  }
}
fn derivative(op: u32, x: f32, y: f32) -> f32 {
  switch (op) {
    case 1u: { return y * (1.0 - y); }
    case 2u: { return 1.0 - y * y; }
    case 3u: { return select(0.0, 1.0, x > 0.0); }
    case 4u: {
      let t = tanhf(geluInner(x));
      let du = 0.7978845608028654 * (1.0 + 3.0 * 0.044715 * x * x);
      return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * du;
    }
    case 5u: { return sigmoidf(x); }
    case 6u: { return y; }
    case 7u: { return -1.0; }
    case 8u: { return x + x; }
    default: { return 1.0; }
  }
}
`;
