// Shared SIMD helpers. `madd` is the one place relaxed-SIMD FMA enters: the same source
// is compiled twice (scripts/build-wasm.mjs), with and without `--enable relaxed-simd`.

/** c + a·b, fused where the runtime has relaxed SIMD. */
// @ts-ignore: decorator
@inline export function madd(a: v128, b: v128, c: v128): v128 {
  if (ASC_FEATURE_RELAXED_SIMD) return f32x4.relaxed_madd(a, b, c);
  return f32x4.add(c, f32x4.mul(a, b));
}
