import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/category.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { zeros } from '../../nn/init.js';
import { atoms, isOrthogonal, repSize, repToString } from '../group/rep.js';
import { checkLayerRep, toGroup, toRep } from '../solve/resolve.js';
import type { GroupLike, RepLike } from '../solve/resolve.js';

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * norm_gated(G, rep): a norm nonlinearity (Worrall et al. 2017; Weiler et al. 2018 §"norm
 * nonlinearities"): every non-scalar atom v is scaled by σ(‖v‖ + b) with a learned bias b per
 * atom; scalars go through swish. Since ‖ρ(g)v‖ = ‖v‖ for orthogonal ρ, it is equivariant
 * for orthogonal groups only (S(n), Z(n), D(n), SO(n), O(n) …) — the Lorentz group is refused.
 * Unlike `gated` it needs no extra gate channels: rep → rep.
 */
export function normGated(group: GroupLike, rep: RepLike): Para {
  const G = toGroup(group), r = toRep(rep);
  checkLayerRep(G, r, 'norm_gated');
  if (!isOrthogonal(G)) throw new RangeArgError(`norm_gated: ${G.name} does not preserve norms (its V is not orthogonal); use gated(${G.name},…)`);
  const as = atoms(r, G.d);
  const n = repSize(r, G.d);
  const vec = as.filter((a) => a.factors.length > 0);
  const scalars = as.filter((a) => a.factors.length === 0).map((a) => a.pos[0]!);
  const self: Para = primitive({
    kind: 'norm_gated',
    args: [G.name, repToString(r, true)],
    dom: [n],
    cod: [n],
    params: vec.length ? [{ name: 'bias', shape: [vec.length], init: zeros }] : [],
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const B = x.batch, X = x.data, bias = theta[0]?.data;
      const y = ctx.alloc([B, n], x.dtype), Y = y.data;
      const norms = new Float64Array(B * vec.length);
      for (let b = 0; b < B; b++) {
        const o = b * n;
        for (const s of scalars) Y[o + s] = X[o + s]! * sigmoid(X[o + s]!);
        vec.forEach((a, k) => {
          let q = 0;
          for (const p of a.pos) q += X[o + p]! ** 2;
          const nv = (norms[b * vec.length + k] = Math.sqrt(q));
          const g = sigmoid(nv + bias![k]!);
          for (const p of a.pos) Y[o + p] = X[o + p]! * g;
        });
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc([B, n], x.dtype);
          const D = dy.data, DX = dx.data;
          for (let b = 0; b < B; b++) {
            const o = b * n;
            for (const s of scalars) {
              const z = X[o + s]!, sg = sigmoid(z);
              DX[o + s] = D[o + s]! * (sg + z * sg * (1 - sg));
            }
            vec.forEach((a, k) => {
              const nv = norms[b * vec.length + k]!, g = sigmoid(nv + bias![k]!), dg = g * (1 - g);
              let dv = 0; // ⟨dy, v⟩
              for (const p of a.pos) dv += D[o + p]! * X[o + p]!;
              if (dTheta) dTheta[0]!.data[k] += dv * dg;
              // y = v·σ(‖v‖ + b): dv_i = dy_i·g + ⟨dy, v⟩·g′·v_i/‖v‖
              const c = nv > 0 ? (dv * dg) / nv : 0;
              for (const p of a.pos) DX[o + p] = D[o + p]! * g + c * X[o + p]!;
            });
          }
          if (!needDx) DX.fill(0);
          return dx;
        },
      };
    },
  });
  return self;
}
