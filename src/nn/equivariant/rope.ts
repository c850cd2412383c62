import { RangeArgError } from '../../errors.js';
import { applyRope, ropeFrequencies } from '../../symmetry/group/rotary.js';
import type { RopeOptions } from '../../symmetry/group/rotary.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { glorotUniform } from '../initializers.js';
import { backend } from '../../tensor/index.js';
import type { Data } from '../../tensor/tensor.js';

export { applyRope, ropeFrequencies } from '../../symmetry/group/rotary.js';
export type { RopeLayout, RopeOptions } from '../../symmetry/group/rotary.js';

/**
 * rope_attention(T, d[, P][, layout]): single-head self-attention with RoPE on q and k,
 * Y = softmax(R(XW_qᵀ)·R(XW_kᵀ)ᵀ/√d)·XW_vᵀ·W_oᵀ. Per-sample shape [T, d] → [T, d].
 * `offset` shifts every absolute position (the output must not change: only relative
 * positions enter).
 */
export function ropeAttention(T: number, d: number, opts: RopeOptions & { offset?: number } = {}): Para {
  if (!(Number.isInteger(T) && T > 0)) throw new RangeArgError(`rope_attention(T,d) needs a positive sequence length, got ${T}`);
  const omega = ropeFrequencies(d, opts);
  const offset = opts.offset ?? 0,
    layout = opts.layout ?? 'interleaved';
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
      const B = x.batch,
        BT = B * T,
        dt = x.dtype,
        TD = T * d;
      const proj = (W: Data): Data => {
        const t = ctx.alloc([BT, d], dt);
        be.gemm(false, true, BT, d, d, x.data, W, t.data, false);
        return t.data;
      };
      const Q = proj(Wq!.data),
        K = proj(Wk!.data),
        Vv = proj(Wv!.data);
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
          for (let j = 0; j < T; j++) z += As[i * T + j] = Math.exp(As[i * T + j]! * scale - mx);
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
          const dQ = ctx.alloc([BT, d], dt).data,
            dK = ctx.alloc([BT, d], dt).data,
            dV = ctx.alloc([BT, d], dt).data;
          const dA = ctx.alloc([T, T], dt).data;
          for (let s = 0; s < B; s++) {
            const As = A.subarray(s * T * T, (s + 1) * T * T),
              sl = (M: Data): Data => M.subarray(s * TD, (s + 1) * TD);
            be.gemm(false, true, T, T, d, sl(dH), sl(Vv), dA, false);
            be.gemm(true, false, T, d, T, As, sl(dH), sl(dV), false);
            // softmax pullback, then the 1/√d scaling: dS = A∘(dA − rowsum(dA∘A))/√d
            for (let i = 0; i < T; i++) {
              let r = 0;
              for (let j = 0; j < T; j++) r += dA[i * T + j]! * As[i * T + j]!;
              for (let j = 0; j < T; j++) dA[i * T + j] = As[i * T + j]! * (dA[i * T + j]! - r) * scale;
            }
            be.gemm(false, false, T, d, T, dA, sl(K), sl(dQ), false);
            be.gemm(true, false, T, d, T, dA, sl(Q), sl(dK), false);
            applyRope(sl(dQ), T, d, omega, offset, true, layout);
            applyRope(sl(dK), T, d, omega, offset, true, layout);
          }
          const pairs: [Data, Data, number][] = [
            [dQ, Wq!.data, 0],
            [dK, Wk!.data, 1],
            [dV, Wv!.data, 2],
          ];
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
