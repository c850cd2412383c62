import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { zeros } from '../initializers.js';
import { atoms, isOrthogonal, repSize, repToString } from '../../symmetry/group/rep.js';
import { checkLayerRep, toGroup, toRep } from '../../symmetry/solve/resolve.js';
import type { GroupLike, RepLike } from '../../symmetry/solve/resolve.js';

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * norm_gated(G, rep): a norm nonlinearity (Worrall et al. 2017; Weiler et al. 2018 §"norm
 * nonlinearities"): every non-scalar atom v is scaled by σ(‖v‖ + b) with a learned bias b per
 * atom; scalars go through swish. Since ‖ρ(g)v‖ = ‖v‖ for orthogonal ρ, it is equivariant
 * for orthogonal groups only (S(n), Z(n), D(n), SO(n), O(n) …) — the Lorentz group is refused.
 * Unlike `gated` it needs no extra gate channels: rep → rep.
 */
export function normGated(group: GroupLike, rep: RepLike): Para {
  const G = toGroup(group),
    r = toRep(rep);
  checkLayerRep(G, r, 'norm_gated');
  if (!isOrthogonal(G)) throw new RangeArgError(`norm_gated: ${G.name} does not preserve norms (its V is not orthogonal); use gated(${G.name},…)`);
  const as = atoms(r, G.d);
  const blocks = as.filter((a) => a.factors.length > 0).map((a) => a.pos);
  const scalars = as.filter((a) => a.factors.length === 0).map((a) => a.pos[0]!);
  return normNonlinearity('norm_gated', [G.name, repToString(r, true)], [repSize(r, G.d)], scalars, blocks);
}

/**
 * The norm nonlinearity on a feature vector of n coordinates per row: swish on the
 * coordinates `scalars`, v ↦ v·σ(‖v‖ + b_k) on each block k of coordinates (one learned
 * bias per block). Rows are every leading axis but the last of `dom`.
 */
export function normNonlinearity(
  kind: string,
  args: readonly (string | number)[],
  dom: readonly number[],
  scalars: readonly number[],
  blocks: readonly ArrayLike<number>[],
): Para {
  const n = dom[dom.length - 1]!,
    per = dom.reduce((a, b) => a * b, 1);
  const nb = blocks.length;
  const self: Para = primitive({
    kind,
    args,
    dom: [...dom],
    cod: [...dom],
    params: nb ? [{ name: 'bias', shape: [nb], init: zeros }] : [],
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const R = (x.batch * per) / n,
        X = x.data,
        bias = theta[0]?.data;
      const y = ctx.alloc(x.shape, x.dtype),
        Y = y.data;
      const norms = new Float64Array(R * nb);
      for (let b = 0; b < R; b++) {
        const o = b * n;
        for (const s of scalars) Y[o + s] = X[o + s]! * sigmoid(X[o + s]!);
        for (let k = 0; k < nb; k++) {
          const pos = blocks[k]!;
          let q = 0;
          for (let j = 0; j < pos.length; j++) q += X[o + pos[j]!]! ** 2;
          const nv = (norms[b * nb + k] = Math.sqrt(q));
          const g = sigmoid(nv + bias![k]!);
          for (let j = 0; j < pos.length; j++) Y[o + pos[j]!] = X[o + pos[j]!]! * g;
        }
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          const D = dy.data,
            DX = dx.data;
          for (let b = 0; b < R; b++) {
            const o = b * n;
            for (const s of scalars) {
              const z = X[o + s]!,
                sg = sigmoid(z);
              DX[o + s] = D[o + s]! * (sg + z * sg * (1 - sg));
            }
            for (let k = 0; k < nb; k++) {
              const pos = blocks[k]!;
              const nv = norms[b * nb + k]!,
                g = sigmoid(nv + bias![k]!),
                dg = g * (1 - g);
              let dv = 0; // ⟨dy, v⟩
              for (let j = 0; j < pos.length; j++) dv += D[o + pos[j]!]! * X[o + pos[j]!]!;
              if (dTheta) dTheta[0]!.data[k]! += dv * dg;
              // y = v·σ(‖v‖ + b): dv_i = dy_i·g + ⟨dy, v⟩·g′·v_i/‖v‖
              const c = nv > 0 ? (dv * dg) / nv : 0;
              for (let j = 0; j < pos.length; j++) DX[o + pos[j]!] = D[o + pos[j]!]! * g + c * X[o + pos[j]!]!;
            }
          }
          if (!needDx) DX.fill(0);
          return dx;
        },
      };
    },
  });
  return self;
}
