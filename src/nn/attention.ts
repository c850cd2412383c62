import { RangeArgError, ShapeError } from '../errors.js';
import { primitive } from '../para/composite.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Ctx, Lens, Para, ParamSpec } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { MatrixBatch } from '../tensor/backend.js';
import type { Data, Tensor } from '../tensor/tensor.js';
import {
  attentionCausal,
  derivedBias,
  derivedBiasBackward,
  parsePosition,
  positionText,
  relativeBias,
  relativeBiasBackward,
  relativeBuckets,
  ropeRotate,
  rotates,
} from './attention-position.js';
import type { Position } from './attention-position.js';
import { requirePositive } from './conv2d.js';
import { glorotUniform, normal, zeros } from './initializers.js';

export type Mask = 'causal' | 'none';

/**
 * attention(d,heads,pos[,mask]): multi-head self-attention on [T, d] per sample (Vaswani et
 * al. 2017), causal unless mask is none. With dh = d/heads and X [T, d]:
 *   Q = X_q·W_qᵀ, K = X_q·W_kᵀ, V = X·W_vᵀ   (X_q = X, or X + P for absolute)
 *   A_h = softmax(Q_h·K_hᵀ/√dh + bias_h)   (masked: query i sees keys j ≤ i)
 *   Y = [A_1·V_1 … A_H·V_H]·W_oᵀ
 * with Q_h, K_h rotated by ρ(position) for rope and bias_h[i,j] = κ_h(j − i) for relative
 * (src/nn/attention-position.ts). With a declared geometry as pos (seq(T), cyclic(T), grid(H,W),
 * grid(H,W,D4), set(n), seq(T,rotary)) the bias is bias_h[i,j] = κ_h[orbit(i,j)], a learned
 * coefficient per head on each basis element of the invariant kernels the solver derives
 * (src/symmetry/geometry), and the geometry decides the mask (seq(T,causal)) and the rotation. The heads are a batch of strided matrices (MatrixBatch):
 * the products run over all sequences and heads in one call each, and no head is copied.
 * Pullback, per head: dV = Aᵀ·dO, dA = dO·Vᵀ, dS = A ⊙ (dA − ⟨dA, A⟩)/√dh, dQ = dS·K,
 * dK = dSᵀ·Q (rotated back by ρᵀ for rope), then the projections' pullbacks.
 */
export function attention(d: number, heads: number, pos: Position | string, mask: Mask = 'causal', T?: number): Para {
  const derived = typeof pos !== 'string' && pos.kind === 'derived';
  const where = `attention(${d},${heads},${typeof pos === 'string' ? pos : positionText(pos)}${mask === 'none' && !derived ? ',none' : ''})`;
  requirePositive(where, 'width d', d);
  requirePositive(where, 'heads', heads);
  if (d % heads !== 0) throw new RangeArgError(`${where}: heads must divide d, but ${heads} does not divide ${d}`);
  const position = typeof pos === 'string' ? parsePosition(pos, where) : pos;
  if (rotates(position) && (d / heads) % 2 !== 0)
    throw new RangeArgError(
      `${where}: ${position.kind === 'rope' ? 'rope' : 'the rotary representation'} rotates pairs of features, so d/heads must be even, got ${d / heads}`,
    );
  if (mask !== 'causal' && mask !== 'none') throw new RangeArgError(`${where}: mask must be causal or none, got '${String(mask)}'`);
  if (T !== undefined && position.kind === 'absolute' && T > position.tmax) {
    throw new RangeArgError(`${where}: absolute(${position.tmax}) has positions 0…${position.tmax - 1} only, so it cannot take a context of ${T}`);
  }
  if (T !== undefined && position.kind === 'derived') checkGeometryLength(position, T, where);
  // a declared geometry says which keys a query sees (seq(T,causal)); the mask argument is for the named mechanisms
  const causal = attentionCausal(position, mask);
  const params: ParamSpec[] = ['wq', 'wk', 'wv', 'wo'].map((name) => ({ name, shape: [d, d], init: glorotUniform(d, d) }));
  if (position.kind === 'relative') params.push({ name: 'distance_bias', shape: [heads, relativeBuckets(position.maxDistance, causal)], init: zeros });
  if (position.kind === 'absolute') params.push({ name: 'position', shape: [position.tmax, d], init: normal(0.02) });
  if (position.kind === 'derived') params.push({ name: 'kernel', shape: [heads, position.kernels.dimension], init: zeros });
  const geometry = geometryOf(d, heads, position, causal);
  const self: Para = primitive({
    kind: 'attention',
    args: [d, heads, positionText(position), ...(causal || position.kind === 'derived' ? [] : ['none'])],
    dom: T === undefined ? undefined : [T, d],
    cod: T === undefined ? undefined : [T, d],
    params,
    at: (s) => {
      if (s.length !== 2 || s[1] !== d) throw new ShapeError(`${where} expects a sequence [*,T,${d}] per sample but got ${describeShape(s)}`);
      return attention(d, heads, position, mask, s[0]);
    },
    forward: (theta, x, ctx) => {
      if (T !== undefined) checkInput(self, x);
      return attentionLens(geometry, theta, x, ctx, where);
    },
  });
  return self;
}

/** What an attention layer computes with: width d, heads of width dh = d/heads, the score scale 1/√dh, its mask and position mechanism. */
export interface Geometry {
  readonly d: number;
  readonly heads: number;
  readonly dh: number;
  readonly scale: number;
  readonly causal: boolean;
  readonly position: Position;
}

function geometryOf(d: number, heads: number, position: Position, causal: boolean): Geometry {
  return { d, heads, dh: d / heads, scale: 1 / Math.sqrt(d / heads), causal, position };
}

/** The geometry of an attention layer, read off its spec arguments [d, heads, pos(, none)] (decoding: src/train/attention-cache.ts). */
export function attentionGeometry(f: Para): Geometry {
  const [d, heads, pos, mask] = f.args as [number, number, string, string?];
  const position = parsePosition(pos, String(f));
  return geometryOf(d, heads, position, attentionCausal(position, mask));
}

/** [count, rows, d] activations as a batch of per-head [rows, dh] matrices. */
export const headsOf = (data: Data, rows: number, g: Geometry): MatrixBatch => ({ data, ld: g.d, outer: rows * g.d, inner: g.dh });
/** [count, heads, Tq, Tk] scores as a batch of per-head [Tq, Tk] matrices. */
export const blocksOf = (data: Data, Tq: number, Tk: number, g: Geometry): MatrixBatch => ({ data, ld: Tk, outer: g.heads * Tq * Tk, inner: Tq * Tk });

/** x·Wᵀ over every row of x ([…, d] rows, W [d, d]). */
export function project(x: Tensor, W: Tensor, ctx: Ctx): Data {
  const d = W.shape[1]!,
    rows = x.size / d;
  const t = ctx.alloc([rows, d], x.dtype, true).data;
  backend().gemm(false, true, rows, d, d, x.data, W.data, t, false);
  return t;
}

/** Positions from … from+T−1 exist: absolute(Tmax) has a table row for each of 0 … Tmax−1 only. */
export function checkPositions(position: Position, from: number, T: number, where: string): void {
  if (position.kind === 'absolute' && from + T > position.tmax) {
    throw new RangeArgError(`${where}: absolute(${position.tmax}) has positions 0…${position.tmax - 1} only, but this pass reaches position ${from + T - 1}`);
  }
}

/**
 * A sequence of T tokens fits a declared geometry: seq(N) takes windows of up to N positions (its
 * kernels restricted to a shorter window are the same kernels), every other geometry exactly its
 * N positions (the kernels of cyclic(N), grid(H,W) and set(N) are those of that many positions).
 */
export function checkGeometryLength(position: Extract<Position, { kind: 'derived' }>, T: number, where: string): void {
  const N = position.kernels.points,
    g = position.geometry;
  if (g.kind === 'seq' ? T > N : T !== N)
    throw new ShapeError(
      `${where} expects ${g.kind === 'seq' ? `at most ${N}` : `exactly ${N}`} positions per sample (${positionText(position)}${g.kind === 'grid' ? `: ${g.H}·${g.W} tokens in row-major order` : ''}) but got ${T}`,
    );
}

/** X + P[offset … offset+T−1] for every sequence (absolute), written into a new tensor. */
export function withPositions(x: Tensor, table: Data, T: number, d: number, from: number, ctx: Ctx): Tensor {
  const xq = ctx.alloc(x.shape, x.dtype, true);
  const per = T * d,
    P = table.subarray(from * d, (from + T) * d);
  for (let b = 0; b < x.batch; b++) for (let i = 0; i < per; i++) xq.data[b * per + i] = x.data[b * per + i]! + P[i]!;
  return xq;
}

function attentionLens(g: Geometry, theta: readonly Tensor[], x: Tensor, ctx: Ctx, where: string): Lens {
  const { d, heads, scale, causal, position } = g;
  if (x.rank !== 3 || x.shape[2] !== d) throw new ShapeError(`${where} expects [*,T,${d}] but got [${x.shape.join(',')}]`);
  const B = x.batch,
    T = x.shape[1]!,
    BT = B * T,
    dt = x.dtype,
    be = backend();
  // a declared geometry's kernels depend on the positions within its window only (relative ones on differences)
  const offset = position.kind === 'derived' && !rotates(position) ? 0 : (ctx.positionOffset ?? 0);
  checkPositions(position, offset, T, where);
  if (position.kind === 'derived') checkGeometryLength(position, T, where);
  const [Wq, Wk, Wv, Wo, extra] = theta as Tensor[];
  const xq = position.kind === 'absolute' ? withPositions(x, extra!.data, T, d, offset, ctx) : x;
  const Q = project(xq, Wq!, ctx),
    K = project(xq, Wk!, ctx),
    V = project(x, Wv!, ctx);
  if (rotates(position)) {
    ropeRotate(Q, B, T, d, heads, offset);
    ropeRotate(K, B, T, d, heads, offset);
  }
  let bias: Data | undefined;
  if (position.kind === 'relative') {
    bias = ctx.alloc([heads, T, T], dt, true).data;
    relativeBias(extra!.data, heads, T, T, 0, position.maxDistance, causal, bias);
  }
  if (position.kind === 'derived') {
    bias = ctx.alloc([heads, T, T], dt, true).data;
    derivedBias(extra!.data, heads, T, T, 0, position.kernels, causal, bias);
  }
  const A = ctx.alloc([B, heads, T, T], dt, true).data;
  be.gemmBatched(false, true, T, T, g.dh, headsOf(Q, T, g), headsOf(K, T, g), blocksOf(A, T, T, g), [B, heads], false);
  be.attentionSoftmax(A, B * heads, T, T, scale, causal, 0, bias, heads);
  const O = ctx.alloc([BT, d], dt, true).data;
  be.gemmBatched(false, false, T, g.dh, T, blocksOf(A, T, T, g), headsOf(V, T, g), headsOf(O, T, g), [B, heads], false);
  const y = ctx.alloc(x.shape, dt, true);
  be.gemm(false, true, BT, d, d, O, Wo!.data, y.data, false);
  return {
    y,
    pullback: (dy, dTheta, needDx = true) => {
      const dO = ctx.alloc([BT, d], dt, true).data;
      be.gemm(false, false, BT, d, d, dy.data, Wo!.data, dO, false);
      if (dTheta) be.gemm(true, false, d, d, BT, dy.data, O, dTheta[3]!.data, true);
      const dA = ctx.alloc([B, heads, T, T], dt, true).data;
      be.gemmBatched(false, true, T, T, g.dh, headsOf(dO, T, g), headsOf(V, T, g), blocksOf(dA, T, T, g), [B, heads], false);
      const dV = ctx.alloc([BT, d], dt, true).data;
      be.gemmBatched(true, false, T, g.dh, T, blocksOf(A, T, T, g), headsOf(dO, T, g), headsOf(dV, T, g), [B, heads], false);
      be.attentionSoftmaxBackward(A, dA, B * heads * T, T, scale);
      if (dTheta && position.kind === 'relative') {
        // dκ: the raw-score gradient over 1/√dh, summed over the batch, then by distance
        const dBias = ctx.alloc([heads, T, T], dt, true).data;
        be.sumRows(dA, B, heads * T * T, dBias, false);
        relativeBiasBackward(dBias, heads, T, T, position.maxDistance, causal, 1 / scale, dTheta[4]!.data);
      }
      if (dTheta && position.kind === 'derived') {
        const dBias = ctx.alloc([heads, T, T], dt, true).data;
        be.sumRows(dA, B, heads * T * T, dBias, false);
        derivedBiasBackward(dBias, heads, T, T, position.kernels, causal, 1 / scale, dTheta[4]!.data);
      }
      const dQ = ctx.alloc([BT, d], dt, true).data,
        dK = ctx.alloc([BT, d], dt, true).data;
      be.gemmBatched(false, false, T, g.dh, T, blocksOf(dA, T, T, g), headsOf(K, T, g), headsOf(dQ, T, g), [B, heads], false);
      be.gemmBatched(true, false, T, g.dh, T, blocksOf(dA, T, T, g), headsOf(Q, T, g), headsOf(dK, T, g), [B, heads], false);
      if (rotates(position)) {
        ropeRotate(dQ, B, T, d, heads, offset, true);
        ropeRotate(dK, B, T, d, heads, offset, true);
      }
      if (dTheta) {
        be.gemm(true, false, d, d, BT, dQ, xq.data, dTheta[0]!.data, true);
        be.gemm(true, false, d, d, BT, dK, xq.data, dTheta[1]!.data, true);
        be.gemm(true, false, d, d, BT, dV, x.data, dTheta[2]!.data, true);
      }
      const needQ = needDx || (dTheta !== null && position.kind === 'absolute');
      const dx = ctx.alloc(x.shape, dt, !needQ);
      if (!needQ) return dx;
      // dX_q = dQ·W_q + dK·W_k; dX = dX_q + dV·W_v; dP[t] += Σ_b dX_q[b, t]
      be.gemm(false, false, BT, d, d, dQ, Wq!.data, dx.data, false);
      be.gemm(false, false, BT, d, d, dK, Wk!.data, dx.data, true);
      if (dTheta && position.kind === 'absolute') {
        const dP = dTheta[4]!.data.subarray(offset * d, (offset + T) * d);
        be.sumRows(dx.data, B, T * d, dP, true);
      }
      be.gemm(false, false, BT, d, d, dV, Wv!.data, dx.data, true);
      return dx;
    },
  };
}
