// Four-lane helpers of the elementwise cell kernels (recurrent.ts, mgu.ts): a row's units four at a time,
// and its tail (h not a multiple of 4) as one unit splatted over the lanes, so that the tail
// runs the very same lane formulas and every unit gets the same rounding.
import { vsigmoid, vtanh } from './vmath';

/** Four lanes at p, or (one) the float at p in every lane. */
// @ts-ignore: decorator
@inline export function ld(p: usize, one: bool): v128 {
  return one ? f32x4.splat(load<f32>(p)) : v128.load(p);
}

/** Four lanes to p, or (one) lane 0 only. */
// @ts-ignore: decorator
@inline export function st(p: usize, v: v128, one: bool): void {
  if (one) store<f32>(p, f32x4.extract_lane(v, 0));
  else v128.store(p, v);
}

export const ONE = f32x4.splat(1);

// σ and tanh as calls rather than inlined at each of their uses: a call costs little beside
// the exp polynomial, and the module stays small (it is embedded four times, base64, in the
// playground's worker)
export function sig(x: v128): v128 {
  return vsigmoid(x);
}
export function th(x: v128): v128 {
  return vtanh(x);
}

/** σ′ and tanh′ read off the activation: y(1 − y) and 1 − y². */
// @ts-ignore: decorator
@inline export function dsig(y: v128): v128 {
  return f32x4.mul(y, f32x4.sub(ONE, y));
}
// @ts-ignore: decorator
@inline export function dtanh(y: v128): v128 {
  return f32x4.sub(ONE, f32x4.mul(y, y));
}
