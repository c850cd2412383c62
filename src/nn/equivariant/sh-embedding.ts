import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { shDim } from '../../symmetry/irreps/spherical-harmonics.js';
import { checkPoints, cloudGeometry, cloudGeometryBackward, shIrreps } from './point-cloud.js';
import { ctxScratch } from './tensor-product.js';

/**
 * Gaussian radial basis R_k(r) = exp(−(r − μ_k)²/(2σ²)), μ_k = k·rmax/(K−1), σ = rmax/(K−1)
 * (SchNet's expansion, Schütt et al. 2017, eq. 8), and dR_k/dr; K = 1 is the constant 1.
 */
export function radialBasis(r: number, K: number, rmax: number, out: Float64Array, dOut: Float64Array): void {
  if (K === 1) {
    out[0] = 1;
    dOut[0] = 0;
    return;
  }
  const s = rmax / (K - 1);
  for (let k = 0; k < K; k++) {
    const z = (r - k * s) / s,
      g = Math.exp(-0.5 * z * z);
    out[k] = g;
    dOut[k] = (-z / s) * g;
  }
}

/**
 * sh_embedding(n, lmax, nbasis, rmax): the edge embedding of a point cloud (Thomas et al. 2018
 * §3; e3nn's `spherical_harmonics` ⊗ a radial basis): positions [n, 3] → for each of the
 * n(n−1) ordered pairs (i, j), in the order i then j ≠ i, the features R_k(|r|)·Y_ℓ(r/|r|)
 * of r = x_j − x_i, as the irreps nbasis x 0e + nbasis x 1o + nbasis x 2e + … (copy k of ℓ is
 * R_k·Y_ℓ; Y in 'component' normalisation). Invariant under translations, equivariant under
 * O(3) (Y_ℓ has parity (−1)^ℓ) and under permutations of the points (which permute the pairs).
 */
export function shEmbedding(n: number, lmax: number, nbasis: number, rmax: number): Para {
  checkPoints('sh_embedding', n);
  if (!(Number.isInteger(lmax) && lmax >= 0 && lmax <= 8)) throw new RangeArgError(`sh_embedding: lmax must be an integer in 0 … 8, got ${lmax}`);
  if (!(Number.isInteger(nbasis) && nbasis >= 1 && nbasis <= 64)) throw new RangeArgError(`sh_embedding: nbasis must be an integer in 1 … 64, got ${nbasis}`);
  if (!(rmax > 0 && Number.isFinite(rmax))) throw new RangeArgError(`sh_embedding: rmax must be a positive number, got ${rmax}`);
  const D = shDim(lmax),
    out = shIrreps('O(3)', lmax, nbasis),
    P = n * (n - 1);
  const self: Para = primitive({
    kind: 'sh_embedding',
    args: [n, lmax, nbasis, rmax],
    dom: [n, 3],
    cod: [P, out.dim],
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const mem = ctxScratch(ctx);
      const g = cloudGeometry(x.data, x.batch, n, 3, lmax, mem);
      const y = ctx.alloc([x.batch, P, out.dim], x.dtype, true);
      const R = new Float64Array(g.edges * nbasis),
        dR = new Float64Array(g.edges * nbasis);
      const r = new Float64Array(nbasis),
        dr = new Float64Array(nbasis);
      for (let e = 0; e < g.edges; e++) {
        radialBasis(g.dist[e]!, nbasis, rmax, r, dr);
        R.set(r, e * nbasis);
        dR.set(dr, e * nbasis);
        const yo = e * out.dim;
        for (let l = 0; l <= lmax; l++) {
          const d = 2 * l + 1,
            off = out.offsets[l]!;
          for (let k = 0; k < nbasis; k++) for (let m = 0; m < d; m++) y.data[yo + off + k * d + m] = r[k]! * g.sh[e * D + l * l + m]!;
        }
      }
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          if (!needDx) return dx;
          const dSh = mem(g.edges * D, true),
            dDist = mem(g.edges, true);
          for (let e = 0; e < g.edges; e++) {
            const yo = e * out.dim;
            for (let l = 0; l <= lmax; l++) {
              const d = 2 * l + 1,
                off = out.offsets[l]!;
              for (let k = 0; k < nbasis; k++)
                for (let m = 0; m < d; m++) {
                  const gy = dy.data[yo + off + k * d + m]!;
                  dSh[e * D + l * l + m]! += gy * R[e * nbasis + k]!;
                  dDist[e]! += gy * dR[e * nbasis + k]! * g.sh[e * D + l * l + m]!;
                }
            }
          }
          cloudGeometryBackward(g, D, dSh, dDist, dx.data, 3);
          return dx;
        },
      };
    },
  });
  return self;
}
