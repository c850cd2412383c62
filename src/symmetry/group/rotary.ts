import { RangeArgError } from '../../errors.js';
import { rotatePairs } from '../../tensor/attention-kernels.js';
import type { Data } from '../../tensor/tensor.js';

/**
 * The rotary representation of position shifts (Su et al. 2021, RoPE). The shift group ℤ acts
 * on d = 2·(d/2) features by
 *   ρ(m) = ⊕_i R(m·ω_i) ∈ SO(2)^{d/2},   R(θ) = [[cos θ, −sin θ], [sin θ, cos θ]],
 * feature pair i rotated by m·ω_i, with ω_i = base^{−2i/d} (base 10000), or ω_i = 2π(i+1)/P
 * when a period P is given (then ρ(m+P) = ρ(m): the action of ℤ/P). The pairs are
 * (2i, 2i+1) INTERLEAVED (the paper's layout, and the default), or (i, i + d/2) HALF-SPLIT
 * (GPT-NeoX, LLaMA in Hugging Face: x·cos + rotate_half(x)·sin) — the same map up to the
 * permutation of features that sends i ↦ 2i and i + d/2 ↦ 2i + 1.
 * Since ρ(m)ᵀρ(n) = ρ(n−m), ⟨ρ(m+s)q, ρ(n+s)k⟩ = ⟨ρ(m)q, ρ(n)k⟩: a score between rotated
 * queries and keys depends on relative position only — the SO(2) end of seed 001. Lives
 * with the groups so that attention (src/nn) and rope_attention (src/nn/equivariant)
 * share one definition.
 */
/** Which features form the rotated pairs: (2i, 2i+1) interleaved, or (i, i + d/2) half-split. */
export type RopeLayout = 'interleaved' | 'half';

export interface RopeOptions {
  base?: number;
  period?: number;
  layout?: RopeLayout;
}

export function ropeFrequencies(d: number, opts: RopeOptions = {}): Float64Array {
  if (!(Number.isInteger(d) && d > 0 && d % 2 === 0)) throw new RangeArgError(`RoPE needs an even feature size, got ${d}`);
  const base = opts.base ?? 10000;
  return Float64Array.from({ length: d / 2 }, (_, i) => (opts.period ? (2 * Math.PI * (i + 1)) / opts.period : Math.pow(base, (-2 * i) / d)));
}

/** Rotates x (T×d at positions offset … offset+T−1) in place by ρ(m), or by ρ(m)ᵀ when `inverse`, pairing features by `layout`. */
export function applyRope(x: Data, T: number, d: number, omega: Float64Array, offset = 0, inverse = false, layout: RopeLayout = 'interleaved'): void {
  if (layout === 'interleaved') {
    rotatePairs(x, 1, d, rotaryTable(T, omega, offset), 1, inverse);
    return;
  }
  const sgn = inverse ? -1 : 1,
    h = d / 2;
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < h; i++) {
      const th = (t + offset) * omega[i]!,
        c = Math.cos(th),
        s = sgn * Math.sin(th);
      const ia = t * d + i,
        ib = ia + h;
      const a = x[ia]!,
        b = x[ib]!;
      x[ia] = a * c - b * s;
      x[ib] = a * s + b * c;
    }
  }
}

/**
 * cos and sin of m·ω_i for positions m = offset … offset+T−1 ([T, d/2] each), so that a
 * batch of sequences is rotated without recomputing them per sequence (by Backend.rotatePairs:
 * one group of pairs per attention head, every head seeing the same ρ).
 */
export interface RotaryTable {
  readonly T: number;
  readonly half: number;
  readonly cos: Float64Array;
  readonly sin: Float64Array;
}

export function rotaryTable(T: number, omega: Float64Array, offset = 0): RotaryTable {
  const half = omega.length;
  const cos = new Float64Array(T * half),
    sin = new Float64Array(T * half);
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < half; i++) {
      const th = (t + offset) * omega[i]!;
      cos[t * half + i] = Math.cos(th);
      sin[t * half + i] = Math.sin(th);
    }
  }
  return { T, half, cos, sin };
}
