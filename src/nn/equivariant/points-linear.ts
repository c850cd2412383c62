import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para, ParamSpec } from '../../para/para.js';
import type { Data } from '../../tensor/tensor.js';
import { irrepDim, irrepName, toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { torchDefaultUniform } from '../initializers.js';
import { checkPoints } from './point-cloud.js';

/**
 * points_linear(n, in, out): the equivariant linear map between irreps on the features of each
 * of n points whose positions travel with them — [n, 3 + in] → [n, 3 + out], positions passed
 * on. By Schur's lemma the map is a matrix W_k per output term k mixing the copies of the same
 * irrep in `in` (every component alike), plus a bias on the even scalars: e3nn's `o3.Linear`,
 * parametrised as PyTorch's nn.Linear (W and the bias ~ U(±1/√fan-in), used as they are) so that
 * an embedding and a read-out learn at the rate of the layers between them. The embedding and
 * the read-out of a model of point attention layers.
 */
export function pointsLinear(n: number, inIrreps: IrrepsLike, outIrreps: IrrepsLike): Para {
  checkPoints('points_linear', n);
  const a = toIrreps(inIrreps),
    o = toIrreps(outIrreps, a.group);
  // for each output term: its offset, dimension, copies, and the input terms of the same irrep
  const plan = o.terms.map((t, k) => {
    const sources = a.terms.flatMap((s, i) => (irrepName(s.ir) === irrepName(t.ir) ? [{ offset: a.offsets[i]!, mul: s.mul }] : []));
    const fanIn = sources.reduce((f, s) => f + s.mul, 0);
    return { k, offset: o.offsets[k]!, mul: t.mul, dim: irrepDim(o.group, t.ir), sources, fanIn, scalar: t.ir.l === 0 && t.ir.p !== -1 };
  });
  const params: ParamSpec[] = [];
  const slots = plan.map((p) => {
    const w = p.fanIn ? params.push({ name: `w${p.k}`, shape: [p.mul, p.fanIn], init: torchDefaultUniform(p.fanIn) }) - 1 : -1;
    const b = p.fanIn && p.scalar ? params.push({ name: `b${p.k}`, shape: [p.mul], init: torchDefaultUniform(p.fanIn) }) - 1 : -1;
    return { w, b };
  });
  const sIn = 3 + a.dim,
    sOut = 3 + o.dim;
  const self: Para = primitive({
    kind: 'points_linear',
    args: [n, String(a), String(o)],
    dom: [n, sIn],
    cod: [n, sOut],
    params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const N = x.batch * n,
        X = x.data;
      const y = ctx.alloc([x.batch, n, sOut], x.dtype);
      const Y = y.data;
      for (let v = 0; v < N; v++) {
        for (let c = 0; c < 3; c++) Y[v * sOut + c] = X[v * sIn + c]!;
        plan.forEach((p, k) => {
          const { w, b } = slots[k]!;
          if (w < 0) return;
          const W = theta[w]!.data,
            bias = b >= 0 ? theta[b]!.data : undefined;
          for (let u = 0; u < p.mul; u++)
            for (let m = 0; m < p.dim; m++) {
              let s = bias ? bias[u]! : 0,
                col = 0;
              for (const src of p.sources) for (let i = 0; i < src.mul; i++) s += W[u * p.fanIn + col++]! * X[v * sIn + 3 + src.offset + i * p.dim + m]!;
              Y[v * sOut + 3 + p.offset + u * p.dim + m] = s;
            }
        });
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const D = dy.data;
          const dx = ctx.alloc(x.shape, x.dtype);
          const dX = dx.data;
          for (let v = 0; v < N; v++) {
            for (let c = 0; c < 3; c++) dX[v * sIn + c] = D[v * sOut + c]!;
            plan.forEach((p, k) => {
              const { w, b } = slots[k]!;
              if (w < 0) return;
              const W = theta[w]!.data;
              const dW: Data | undefined = dTheta?.[w]?.data,
                dB: Data | undefined = b >= 0 ? dTheta?.[b]?.data : undefined;
              for (let u = 0; u < p.mul; u++)
                for (let m = 0; m < p.dim; m++) {
                  const g = D[v * sOut + 3 + p.offset + u * p.dim + m]!;
                  if (dB) dB[u]! += g;
                  let col = 0;
                  for (const src of p.sources)
                    for (let i = 0; i < src.mul; i++) {
                      const at = v * sIn + 3 + src.offset + i * p.dim + m;
                      if (dW) dW[u * p.fanIn + col]! += g * X[at]!;
                      if (needDx) dX[at]! += g * W[u * p.fanIn + col]!;
                      col++;
                    }
                }
            });
          }
          return dx;
        },
      };
    },
  });
  return self;
}
