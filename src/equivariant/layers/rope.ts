import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/category.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { glorotUniform } from '../../nn/init.js';
import { backend } from '../../tensor/index.js';
import type { Data } from '../../tensor/tensor.js';

/**
 * Rotary position embedding (Su et al. 2021), in two layouts. INTERLEAVED (the paper's, and
 * the default): feature pair (2i, 2i+1) of the vector at position m is rotated by m·ω_i,
 *   [x_{2i}, x_{2i+1}] ↦ [x_{2i}cos θ − x_{2i+1}sin θ, x_{2i}sin θ + x_{2i+1}cos θ],  θ = m·ω_i;
 * HALF-SPLIT (GPT-NeoX, LLaMA in Hugging Face: x·cos + rotate_half(x)·sin): the pair is
 * (i, i + d/2) instead. The two are the same map up to the permutation of features that sends
 * i ↦ 2i and i + d/2 ↦ 2i + 1,
 * with ω_i = base^{−2i/d} (base 10000), or ω_i = 2π(i+1)/P when a period P is given (then
 * R_{m+P} = R_m and RoPE attention commutes with cyclic shifts of a length-P sequence).
 * Each R_m is an element of SO(2)^{d/2}; since R_mᵀR_n = R_{n−m}, ⟨R_{m+s}q, R_{n+s}k⟩ =
 * ⟨R_m q, R_n k⟩: the score depends on relative position only — the SO(2) end of seed 001.
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

/** Rotates x (T×d at positions offset … offset+T−1) in place by R_m, or by R_mᵀ when `inverse`, pairing features by `layout`. */
export function applyRope(x: Data, T: number, d: number, omega: Float64Array, offset = 0, inverse = false, layout: RopeLayout = 'interleaved'): void {
  const sgn = inverse ? -1 : 1, h = d / 2;
  for (let t = 0; t < T; t++) {
    const m = t + offset;
    for (let i = 0; i < h; i++) {
      const th = m * omega[i]!, c = Math.cos(th), s = sgn * Math.sin(th);
      const ia = t * d + (layout === 'half' ? i : 2 * i), ib = layout === 'half' ? ia + h : ia + 1;
      const a = x[ia]!, b = x[ib]!;
      x[ia] = a * c - b * s;
      x[ib] = a * s + b * c;
    }
  }
}

/**
 * rope_attention(T, d[, P][, layout]): single-head self-attention with RoPE on q and k,
 * Y = softmax(R(XW_qᵀ)·R(XW_kᵀ)ᵀ/√d)·XW_vᵀ·W_oᵀ. Per-sample shape [T, d] → [T, d].
 * `offset` shifts every absolute position (the output must not change: only relative
 * positions enter).
 */
export function ropeAttention(T: number, d: number, opts: RopeOptions & { offset?: number } = {}): Para {
  if (!(Number.isInteger(T) && T > 0)) throw new RangeArgError(`rope_attention(T,d) needs a positive sequence length, got ${T}`);
  const omega = ropeFrequencies(d, opts);
  const offset = opts.offset ?? 0, layout = opts.layout ?? 'interleaved';
  if (layout !== 'interleaved' && layout !== 'half') throw new RangeArgError(`rope_attention: layout must be 'interleaved' or 'half', got '${String(layout)}'`);
  const scale = 1 / Math.sqrt(d);
  const names = ['wq', 'wk', 'wv', 'wo'];
  const self: Para = primitive({
    kind: 'rope_attention',
    args: [T, d, ...(opts.period ? [opts.period] : []), ...(layout === 'half' ? ['half'] : [])],
    dom: [T, d],
    cod: [T, d],
    params: names.map((name) => ({ name, shape: [d, d], init: glorotUniform(d, d) })),
    forward: ([Wq, Wk, Wv, Wo], x, ctx) => {
      checkInput(self, x);
      const be = backend();
      const B = x.batch, BT = B * T, dt = x.dtype, TD = T * d;
      const proj = (W: Data): Data => {
        const t = ctx.alloc([BT, d], dt);
        be.gemm(false, true, BT, d, d, x.data, W, t.data, false);
        return t.data;
      };
      const Q = proj(Wq!.data), K = proj(Wk!.data), Vv = proj(Wv!.data);
      for (let s = 0; s < B; s++) {
        applyRope(Q.subarray(s * TD, (s + 1) * TD), T, d, omega, offset, false, layout);
        applyRope(K.subarray(s * TD, (s + 1) * TD), T, d, omega, offset, false, layout);
      }
      const A = ctx.alloc([B, T, T], dt).data;
      const H = ctx.alloc([BT, d], dt).data;
      for (let s = 0; s < B; s++) {
        const As = A.subarray(s * T * T, (s + 1) * T * T);
        be.gemm(false, true, T, T, d, Q.subarray(s * TD, (s + 1) * TD), K.subarray(s * TD, (s + 1) * TD), As, false);
        for (let i = 0; i < T; i++) {
          let mx = -Infinity;
          for (let j = 0; j < T; j++) mx = Math.max(mx, As[i * T + j]! * scale);
          let z = 0;
          for (let j = 0; j < T; j++) z += (As[i * T + j] = Math.exp(As[i * T + j]! * scale - mx));
          for (let j = 0; j < T; j++) As[i * T + j]! /= z;
        }
        be.gemm(false, false, T, d, T, As, Vv.subarray(s * TD, (s + 1) * TD), H.subarray(s * TD, (s + 1) * TD), false);
      }
      const y = ctx.alloc([B, T, d], dt);
      be.gemm(false, true, BT, d, d, H, Wo!.data, y.data, false);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dH = ctx.alloc([BT, d], dt).data;
          be.gemm(false, false, BT, d, d, dy.data, Wo!.data, dH, false);
          if (dTheta) be.gemm(true, false, d, d, BT, dy.data, H, dTheta[3]!.data, true);
          const dQ = ctx.alloc([BT, d], dt).data, dK = ctx.alloc([BT, d], dt).data, dV = ctx.alloc([BT, d], dt).data;
          const dA = ctx.alloc([T, T], dt).data;
          for (let s = 0; s < B; s++) {
            const As = A.subarray(s * T * T, (s + 1) * T * T), sl = (M: Data): Data => M.subarray(s * TD, (s + 1) * TD);
            be.gemm(false, true, T, T, d, sl(dH), sl(Vv), dA, false);
            be.gemm(true, false, T, d, T, As, sl(dH), sl(dV), false);
            // softmax pullback, then the 1/√d scaling: dS = A∘(dA − rowsum(dA∘A))/√d
            for (let i = 0; i < T; i++) {
              let r = 0;
              for (let j = 0; j < T; j++) r += dA[i * T + j]! * As[i * T + j]!;
              for (let j = 0; j < T; j++) dA[i * T + j] = (As[i * T + j]! * (dA[i * T + j]! - r)) * scale;
            }
            be.gemm(false, false, T, d, T, dA, sl(K), sl(dQ), false);
            be.gemm(true, false, T, d, T, dA, sl(Q), sl(dK), false);
            applyRope(sl(dQ), T, d, omega, offset, true, layout);
            applyRope(sl(dK), T, d, omega, offset, true, layout);
          }
          const pairs: [Data, Data, number][] = [[dQ, Wq!.data, 0], [dK, Wk!.data, 1], [dV, Wv!.data, 2]];
          const dx = ctx.alloc([B, T, d], dt);
          for (const [dP, W, k] of pairs) {
            if (dTheta) be.gemm(true, false, d, d, BT, dP, x.data, dTheta[k]!.data, true);
            if (needDx) be.gemm(false, false, BT, d, d, dP, W, dx.data, true);
          }
          return dx;
        },
      };
    },
  });
  return self;
}
