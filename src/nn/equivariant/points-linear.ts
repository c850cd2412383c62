import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { checkPoints } from './point-cloud.js';
import { irrepsLinear } from './tensor-product.js';

/**
 * points_linear(n, in, out): irreps_linear(in, out) on the features of each of n points whose
 * positions travel with them — [n, 3 + in] → [n, 3 + out], positions passed on. The embedding
 * and the read-out of a model of point attention layers (which keep the positions in the first
 * three columns of every point): equivariant per point (Schur's lemma leaves per-ℓ weights and a
 * bias on the scalars), blind to the positions.
 */
export function pointsLinear(n: number, inIrreps: IrrepsLike, outIrreps: IrrepsLike): Para {
  checkPoints('points_linear', n);
  const a = toIrreps(inIrreps),
    o = toIrreps(outIrreps, a.group);
  const inner = irrepsLinear(a, o, n);
  const sIn = 3 + a.dim,
    sOut = 3 + o.dim;
  const self: Para = primitive({
    kind: 'points_linear',
    args: [n, String(a), String(o)],
    dom: [n, sIn],
    cod: [n, sOut],
    params: inner.params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const N = x.batch * n,
        X = x.data;
      const feats = ctx.alloc([x.batch, n, a.dim], x.dtype, true);
      for (let v = 0; v < N; v++) feats.data.set(X.subarray(v * sIn + 3, (v + 1) * sIn), v * a.dim);
      const lens = inner.forward(theta, feats, ctx);
      const y = ctx.alloc([x.batch, n, sOut], x.dtype, true);
      for (let v = 0; v < N; v++) {
        y.data.set(X.subarray(v * sIn, v * sIn + 3), v * sOut);
        y.data.set(lens.y.data.subarray(v * o.dim, (v + 1) * o.dim), v * sOut + 3);
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dyf = ctx.alloc([x.batch, n, o.dim], x.dtype, true);
          for (let v = 0; v < N; v++) dyf.data.set(dy.data.subarray(v * sOut + 3, (v + 1) * sOut), v * o.dim);
          const df = lens.pullback(new Tensor(dyf.data, dyf.shape), dTheta, needDx);
          const dx = ctx.alloc(x.shape, x.dtype, true);
          for (let v = 0; v < N; v++) {
            dx.data.set(dy.data.subarray(v * sOut, v * sOut + 3), v * sIn);
            dx.data.set(df.data.subarray(v * a.dim, (v + 1) * a.dim), v * sIn + 3);
          }
          return dx;
        },
      };
    },
  });
  return self;
}
