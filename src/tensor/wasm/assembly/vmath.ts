// Four-lane float32 transcendental functions (Cephes single-precision polynomials,
// S. L. Moshier, "Methods and Programs for Mathematical Functions", 1989): exp by range
// reduction x = n·ln2 + r and a degree-6 polynomial in r; tanh by a polynomial near 0 and
// 1 − 2/(e^{2|x|}+1) elsewhere. Relative error a few float32 ulps.

/**
 * e^x per lane, overflowing to +∞ above ln(FLT_MAX) = 88.72283 as the reference does. Lanes
 * above 88 are computed as 2·e^(x − ln 2), so the polynomial's clamp at 88.376 never bites
 * below the overflow point; inputs under −87.337 give e^−87.337 (≈ 1.2e−38, not a denormal).
 */
// @ts-ignore: decorator
@inline export function vexp(x0: v128): v128 {
  const big = f32x4.gt(x0, f32x4.splat(88.0));
  let x = v128.bitselect(f32x4.sub(x0, f32x4.splat(0.6931471805599453)), x0, big);
  x = f32x4.min(f32x4.max(x, f32x4.splat(-87.33654)), f32x4.splat(88.37626));
  // n = round(x·log₂e) by adding 1.5·2²³: the sum's low mantissa bits are n (ties to even, as
  // f32x4.nearest), and the same bits give 2ⁿ below without a float-to-int conversion
  const t = f32x4.add(f32x4.mul(x, f32x4.splat(1.44269504088896341)), f32x4.splat(12582912.0));
  const fx = f32x4.sub(t, f32x4.splat(12582912.0));
  x = f32x4.sub(x, f32x4.mul(fx, f32x4.splat(0.693359375)));
  x = f32x4.sub(x, f32x4.mul(fx, f32x4.splat(-2.12194440e-4)));
  let y = f32x4.splat(1.9875691500e-4);
  y = f32x4.add(f32x4.mul(y, x), f32x4.splat(1.3981999507e-3));
  y = f32x4.add(f32x4.mul(y, x), f32x4.splat(8.3334519073e-3));
  y = f32x4.add(f32x4.mul(y, x), f32x4.splat(4.1665795894e-2));
  y = f32x4.add(f32x4.mul(y, x), f32x4.splat(1.6666665459e-1));
  y = f32x4.add(f32x4.mul(y, x), f32x4.splat(5.0000001201e-1));
  y = f32x4.add(f32x4.add(f32x4.mul(f32x4.mul(y, x), x), x), f32x4.splat(1));
  // 2^n: n + 127 in the exponent field (n ≤ 127 by the clamp; n = 128 cannot occur). t's bits
  // are 0x4B400000 + n, and 0x4B400000 << 23 vanishes mod 2³², so (bits(t) + 127) << 23 = (n + 127) << 23
  const pow2 = i32x4.shl(i32x4.add(t, i32x4.splat(127)), 23);
  const r = f32x4.mul(y, pow2);
  const r2 = v128.bitselect(f32x4.add(r, r), r, big);
  return v128.bitselect(f32x4.splat(Infinity), r2, f32x4.gt(x0, f32x4.splat(88.72283)));
}

/** 1/(1+e^{−x}) per lane. */
// @ts-ignore: decorator
@inline export function vsigmoid(x: v128): v128 {
  return f32x4.div(f32x4.splat(1), f32x4.add(f32x4.splat(1), vexp(f32x4.neg(x))));
}

/** tanh per lane. */
// @ts-ignore: decorator
@inline export function vtanh(x: v128): v128 {
  const ax = f32x4.abs(x);
  // |x| ≥ 0.625: 1 − 2/(e^{2|x|}+1), with x's sign
  const big = f32x4.sub(f32x4.splat(1), f32x4.div(f32x4.splat(2), f32x4.add(vexp(f32x4.add(ax, ax)), f32x4.splat(1))));
  const signed = v128.or(big, v128.and(x, i32x4.splat(0x80000000)));
  // |x| < 0.625: x + x·z·P(z), z = x²
  const z = f32x4.mul(x, x);
  let p = f32x4.splat(-5.70498872745e-3);
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(2.06390887954e-2));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(-5.37397155531e-2));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(1.33314422036e-1));
  p = f32x4.add(f32x4.mul(p, z), f32x4.splat(-3.33332819422e-1));
  const small = f32x4.add(x, f32x4.mul(f32x4.mul(x, z), p));
  return v128.bitselect(small, signed, f32x4.lt(ax, f32x4.splat(0.625)));
}
