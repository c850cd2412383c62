import { ShapeError } from '../errors.js';
import { attentionGeometry, blocksOf, checkGeometryLength, checkPositions, headsOf, project, withPositions } from '../nn/attention.js';
import { derivedBias, relativeBias, ropeRotate, rotates } from '../nn/attention-position.js';
import type { Ctx, Para } from '../para/para.js';
import type { MatrixBatch } from '../tensor/backend.js';
import { backend } from '../tensor/registry.js';
import type { Data, Tensor } from '../tensor/tensor.js';

/**
 * Decoding a causal attention(d,heads,pos) with a key/value cache (its rule in ./decode.ts):
 * each step projects only the new positions, appends their rotated keys and their values to
 * the cache, and attends from the new queries to every cached key (causally). The cache
 * doubles when full, so n positions cost O(n·d) memory and the k-th step O(k·d) time.
 * Undefined for attention without the causal mask: a later position changes earlier outputs.
 */
export function attentionStepper(f: Para, theta: readonly Tensor[], ctx: Ctx): { step(x: Tensor): Tensor } | undefined {
  const g = attentionGeometry(f);
  if (!g.causal) return undefined;
  const where = String(f);
  const { d, heads, scale, position } = g;
  const [Wq, Wk, Wv, Wo, extra] = theta as Tensor[];
  const be = backend();
  // a declared geometry's kernels depend on the positions within its window only (relative ones on differences)
  const offset = position.kind === 'derived' && !rotates(position) ? 0 : (ctx.positionOffset ?? 0);
  let seen = 0,
    cap = 0,
    B = 0;
  let Kc: Data | undefined, Vc: Data | undefined;
  const grow = (need: number, dt: Tensor['dtype']): void => {
    if (need <= cap) return;
    const next = Math.max(need, 2 * cap, 16);
    const K2 = ctx.alloc([B, next, d], dt).data,
      V2 = ctx.alloc([B, next, d], dt).data;
    for (let b = 0; b < B; b++) {
      if (Kc) K2.set(Kc.subarray(b * cap * d, (b * cap + seen) * d), b * next * d);
      if (Vc) V2.set(Vc.subarray(b * cap * d, (b * cap + seen) * d), b * next * d);
    }
    Kc = K2;
    Vc = V2;
    cap = next;
  };
  return {
    step: (x) => {
      if (x.rank !== 3 || x.shape[2] !== d) throw new ShapeError(`${where} expects [*,L,${d}] per step but got [${x.shape.join(',')}]`);
      if (seen === 0) B = x.batch;
      else if (x.batch !== B) throw new ShapeError(`${where}: a decoding step has ${x.batch} sequences but the cache holds ${B}`);
      const L = x.shape[1]!,
        BL = B * L,
        dt = x.dtype,
        from = seen + offset;
      checkPositions(position, from, L, where);
      if (position.kind === 'derived') checkGeometryLength(position, seen + L, where);
      const xq = position.kind === 'absolute' ? withPositions(x, extra!.data, L, d, from, ctx) : x;
      const Q = project(xq, Wq!, ctx),
        Kn = project(xq, Wk!, ctx),
        Vn = project(x, Wv!, ctx);
      if (rotates(position)) {
        ropeRotate(Q, B, L, d, heads, from);
        ropeRotate(Kn, B, L, d, heads, from);
      }
      grow(seen + L, dt);
      for (let b = 0; b < B; b++) {
        Kc!.set(Kn.subarray(b * L * d, (b + 1) * L * d), (b * cap + seen) * d);
        Vc!.set(Vn.subarray(b * L * d, (b + 1) * L * d), (b * cap + seen) * d);
      }
      const Tk = seen + L;
      let bias: Data | undefined;
      if (position.kind === 'relative') {
        bias = ctx.alloc([heads, L, Tk], dt, true).data;
        relativeBias(extra!.data, heads, L, Tk, seen, position.maxDistance, true, bias);
      }
      if (position.kind === 'derived') {
        bias = ctx.alloc([heads, L, Tk], dt, true).data;
        derivedBias(extra!.data, heads, L, Tk, seen, position.kernels, true, bias);
      }
      const cache = (data: Data): MatrixBatch => ({ data, ld: d, outer: cap * d, inner: g.dh });
      const A = ctx.alloc([B, heads, L, Tk], dt, true).data;
      be.gemmBatched(false, true, L, Tk, g.dh, headsOf(Q, L, g), cache(Kc!), blocksOf(A, L, Tk, g), [B, heads], false);
      be.attentionSoftmax(A, B * heads, L, Tk, scale, true, seen, bias, heads);
      const O = ctx.alloc([BL, d], dt, true).data;
      be.gemmBatched(false, false, L, g.dh, Tk, blocksOf(A, L, Tk, g), cache(Vc!), headsOf(O, L, g), [B, heads], false);
      const y = ctx.alloc(x.shape, dt, true);
      be.gemm(false, true, BL, d, d, O, Wo!.data, y.data, false);
      seen += L;
      return y;
    },
  };
}
