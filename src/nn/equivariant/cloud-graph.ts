import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para, ParamSpec } from '../../para/para.js';
import type { Data } from '../../tensor/tensor.js';
import { shDim } from '../../symmetry/irreps/spherical-harmonics.js';
import { checkPoints, cloudGeometry, cloudGeometryBackward } from './point-cloud.js';
import { ctxScratch } from './tensor-product.js';

/**
 * The lenses between the points of a cloud and the edges of its complete graph, from which
 * message passing (e3_conv) is composed. A sample of points is [n, 3 + c]: each point's
 * position and c features; a sample of edges is [n(n−1), …]: one row per ordered pair (i, j),
 * i ≠ j, in the order i, then j (CloudGeometry: the message from j to i, along r_ij = x_j − x_i).
 * Positions enter only through r_ij, so each lens is invariant under translations, and
 * equivariant under rotations and reflections of the positions when the features are irreps.
 */

/**
 * cloud_edges(n,lmax): [n, 3 + c] → [n(n−1), 2c + 1 + (lmax+1)²], edge (i, j) ↦
 * [h_i | h_j | ‖r_ij‖ | Y₀…Y_lmax(r_ij/‖r_ij‖)] — the two ends' features, the distance and the
 * spherical harmonics of the direction. Pullback: the feature rows scatter back to their points;
 * the distance and harmonics reach the positions through ∂‖r‖/∂r and ∂Y/∂r.
 */
export function cloudEdges(n: number, lmax: number, c: number): Para {
  checkPoints('cloud_edges', n);
  const A = shDim(lmax),
    s = 3 + c,
    w = 2 * c + 1 + A,
    E = n * (n - 1);
  const self: Para = primitive({
    kind: 'cloud_edges',
    args: [n, lmax],
    dom: [n, s],
    cod: [E, w],
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const mem = ctxScratch(ctx),
        X = x.data;
      const geo = cloudGeometry(X, x.batch, n, s, lmax, mem);
      const y = ctx.alloc([x.batch, E, w], x.dtype, true),
        Y = y.data;
      for (let e = 0; e < geo.edges; e++) {
        const o = e * w,
          t = geo.target[e]! * s + 3,
          j = geo.source[e]! * s + 3;
        Y.set(X.subarray(t, t + c), o);
        Y.set(X.subarray(j, j + c), o + c);
        Y[o + 2 * c] = geo.dist[e]!;
        Y.set(geo.sh.subarray(e * A, (e + 1) * A), o + 2 * c + 1);
      }
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          if (!needDx) return dx;
          const f64 = x.dtype === 'float64',
            D = dy.data,
            dX = dx.data;
          const dDist = mem(geo.edges, f64),
            dSh = mem(geo.edges * A, f64);
          for (let e = 0; e < geo.edges; e++) {
            const o = e * w,
              t = geo.target[e]! * s + 3,
              j = geo.source[e]! * s + 3;
            for (let k = 0; k < c; k++) {
              dX[t + k]! += D[o + k]!;
              dX[j + k]! += D[o + c + k]!;
            }
            dDist[e] = D[o + 2 * c]!;
            for (let k = 0; k < A; k++) dSh[e * A + k] = D[o + 2 * c + 1 + k]!;
          }
          cloudGeometryBackward(geo, A, dSh, dDist, dX, s);
          return dx;
        },
      };
    },
  });
  return self;
}

/**
 * node_attributes(n,lmax): [n, 3 + c] → [n, 3 + c + (lmax+1)²], each point's row followed by
 * b_i = mean_j Y(r_ij/‖r_ij‖), the mean of its edges' harmonics (SEGNN's node attributes,
 * Brandstetter et al. 2022 §3.2). Pullback: the row passes back, and db_i reaches the positions
 * through ∂Y/∂r of each edge of i.
 */
export function nodeAttributes(n: number, lmax: number, c: number): Para {
  checkPoints('node_attributes', n);
  const A = shDim(lmax),
    s = 3 + c,
    w = s + A;
  const self: Para = primitive({
    kind: 'node_attributes',
    args: [n, lmax],
    dom: [n, s],
    cod: [n, w],
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const mem = ctxScratch(ctx),
        X = x.data,
        N = x.batch * n;
      const geo = cloudGeometry(X, x.batch, n, s, lmax, mem);
      const y = ctx.alloc([x.batch, n, w], x.dtype),
        Y = y.data;
      for (let v = 0; v < N; v++) Y.set(X.subarray(v * s, (v + 1) * s), v * w);
      for (let e = 0; e < geo.edges; e++) {
        const b = geo.target[e]! * w + s;
        for (let k = 0; k < A; k++) Y[b + k]! += geo.sh[e * A + k]! / (n - 1);
      }
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          if (!needDx) return dx;
          const D = dy.data,
            dX = dx.data;
          for (let v = 0; v < N; v++) dX.set(D.subarray(v * w, v * w + s), v * s);
          const dSh = mem(geo.edges * A, x.dtype === 'float64');
          for (let e = 0; e < geo.edges; e++) {
            const b = geo.target[e]! * w + s;
            for (let k = 0; k < A; k++) dSh[e * A + k] = D[b + k]! / (n - 1);
          }
          cloudGeometryBackward(geo, A, dSh, null, dX, s);
          return dx;
        },
      };
    },
  });
  return self;
}

/** How messages into a point are combined: summed (SEGNN), or weighted by a softmax over invariant logits (attention). */
export type Aggregation = 'sum' | 'attention';

/**
 * aggregate(n,sum): [n(n−1), d] → [n, d], m_i = Σ_j m_ij, the messages into each point added
 * (pullback: each edge gets its target's gradient). aggregate(n,attention,k): m_i = Σ_j α_ij m_ij
 * with α_i· = softmax_j(w · m_ij[0…k−1]), logits from the first k channels (invariant scalars),
 * w a parameter [k].
 */
export function aggregate(n: number, d: number, aggregation: Aggregation, scalars = 0): Para {
  checkPoints('aggregate', n);
  if (aggregation === 'attention' && !(Number.isInteger(scalars) && scalars >= 1 && scalars <= d))
    throw new RangeArgError(`aggregate: attention reads its logits from 1 … ${d} scalar channels, got ${scalars}`);
  const per = n - 1,
    E = n * per;
  const params: ParamSpec[] =
    aggregation === 'attention'
      ? [
          {
            name: 'attention',
            shape: [scalars],
            init: (rng, out) => {
              for (let i = 0; i < out.length; i++) out[i] = rng.normal() / Math.sqrt(scalars);
            },
          },
        ]
      : [];
  const self: Para = primitive({
    kind: 'aggregate',
    args: aggregation === 'attention' ? [n, aggregation, scalars] : [n, aggregation],
    dom: [E, d],
    cod: [n, d],
    params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const N = x.batch * n,
        M = x.data;
      const y = ctx.alloc([x.batch, n, d], x.dtype),
        Y = y.data;
      // edge e = v·(n−1) + q runs into point v (the edges of a point are consecutive)
      let alpha: Data | undefined;
      if (aggregation === 'sum') {
        for (let v = 0; v < N; v++) for (let e = v * per; e < (v + 1) * per; e++) for (let k = 0; k < d; k++) Y[v * d + k]! += M[e * d + k]!;
      } else {
        const w = theta[0]!.data;
        alpha = ctxScratch(ctx)(N * per, x.dtype === 'float64');
        for (let v = 0; v < N; v++) {
          let mx = -Infinity;
          for (let e = v * per; e < (v + 1) * per; e++) {
            let l = 0;
            for (let k = 0; k < scalars; k++) l += w[k]! * M[e * d + k]!;
            alpha[e] = l;
            mx = Math.max(mx, l);
          }
          let z = 0;
          for (let e = v * per; e < (v + 1) * per; e++) z += alpha[e] = Math.exp(alpha[e]! - mx);
          for (let e = v * per; e < (v + 1) * per; e++) {
            alpha[e]! /= z;
            for (let k = 0; k < d; k++) Y[v * d + k]! += alpha[e]! * M[e * d + k]!;
          }
        }
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype, true),
            D = dy.data,
            dM = dx.data;
          if (!alpha) {
            for (let v = 0; v < N; v++) for (let e = v * per; e < (v + 1) * per; e++) dM.set(D.subarray(v * d, (v + 1) * d), e * d);
            return dx;
          }
          const w = theta[0]!.data,
            dw = dTheta ? dTheta[0]!.data : null;
          const dots = new Float64Array(per);
          for (let v = 0; v < N; v++) {
            // dℓ_e = α_e(⟨dm_v, m_e⟩ − Σ_k α_k⟨dm_v, m_k⟩); dm_e = α_e dm_v + dℓ_e·w on the scalars
            let mean = 0;
            for (let q = 0; q < per; q++) {
              const e = v * per + q;
              let s = 0;
              for (let k = 0; k < d; k++) s += D[v * d + k]! * M[e * d + k]!;
              dots[q] = s;
              mean += alpha[e]! * s;
            }
            for (let q = 0; q < per; q++) {
              const e = v * per + q,
                a = alpha[e]!,
                dl = a * (dots[q]! - mean);
              for (let k = 0; k < d; k++) dM[e * d + k] = a * D[v * d + k]!;
              for (let k = 0; k < scalars; k++) {
                dM[e * d + k]! += dl * w[k]!;
                if (dw) dw[k]! += dl * M[e * d + k]!;
              }
            }
          }
          return dx;
        },
      };
    },
  });
  return self;
}
