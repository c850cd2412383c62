import { ShapeError } from '../../errors.js';
import { primitive, seq } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { equivariantLinear } from './linear.js';
import { normGated } from './norm.js';
import { atoms, repSize, repToString, sum, tensorRep, times, trivial } from '../../symmetry/group/rep.js';
import type { Rep } from '../../symmetry/group/rep.js';
import { checkLayerRep, toGroup, toRep } from '../../symmetry/solve/resolve.js';
import type { GroupLike, RepLike } from '../../symmetry/solve/resolve.js';

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** The number of gate scalars `gated(rep)` needs: one per non-scalar atom of rep. */
export function gateCount(r: Rep, d: number): number {
  return atoms(r, d).filter((a) => a.factors.length > 0).length;
}

/** rep ⊕ (one trivial gate per non-scalar atom): what the linear layer before `gated` outputs. */
export function withGates(r: Rep, d: number): Rep {
  const g = gateCount(r, d);
  return g ? sum(r, times(g, trivial)) : r;
}

/**
 * gated(G, rep): EMLP's gated nonlinearity (Finzi et al. 2021 §6; Weiler et al. 2018).
 * Input rep ⊕ gates: scalar channels go through swish s·σ(s); every non-scalar atom v is
 * scaled by σ(g) of its own invariant gate scalar g. Scaling by an invariant commutes with
 * the group action, so the map is equivariant for every group, orthogonal or not.
 */
export function gated(group: GroupLike, rep: RepLike): Para {
  const G = toGroup(group),
    r = toRep(rep);
  checkLayerRep(G, r, 'gated');
  const as = atoms(r, G.d);
  const n = repSize(r, G.d);
  const vec = as.filter((a) => a.factors.length > 0);
  const scalars = as.filter((a) => a.factors.length === 0).map((a) => a.pos[0]!);
  const nIn = n + vec.length;
  const self: Para = primitive({
    kind: 'gated',
    args: [G.name, repToString(r, true)],
    dom: [nIn],
    cod: [n],
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const B = x.batch,
        X = x.data;
      const y = ctx.alloc([B, n], x.dtype),
        Y = y.data;
      for (let b = 0; b < B; b++) {
        const xo = b * nIn,
          yo = b * n;
        for (const s of scalars) Y[yo + s] = X[xo + s]! * sigmoid(X[xo + s]!);
        vec.forEach((a, k) => {
          const gk = sigmoid(X[xo + n + k]!);
          for (const p of a.pos) Y[yo + p] = X[xo + p]! * gk;
        });
      }
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc([B, nIn], x.dtype);
          if (!needDx) return dx;
          const D = dy.data,
            DX = dx.data;
          for (let b = 0; b < B; b++) {
            const xo = b * nIn,
              yo = b * n;
            for (const s of scalars) {
              const z = X[xo + s]!,
                sg = sigmoid(z);
              DX[xo + s] = D[yo + s]! * (sg + z * sg * (1 - sg));
            }
            vec.forEach((a, k) => {
              const gk = sigmoid(X[xo + n + k]!);
              let dg = 0;
              for (const p of a.pos) {
                DX[xo + p] = D[yo + p]! * gk;
                dg += D[yo + p]! * X[xo + p]!;
              }
              DX[xo + n + k] = dg * gk * (1 - gk);
            });
          }
          return dx;
        },
      };
    },
  });
  return self;
}

/**
 * bilinear(G, rep): x ↦ x ⊕ (x ⊗ x), equivariant for ρ ↦ ρ ⊕ ρ⊗ρ. It supplies the
 * products that linear maps and gates cannot make (EMLP's bilinear layer in its simplest
 * form): e.g. from point positions to their outer products x xᵀ ∈ T(2).
 */
export function bilinear(group: GroupLike, rep: RepLike): Para {
  const G = toGroup(group),
    r = toRep(rep);
  const n = repSize(r, G.d),
    m = n + n * n;
  checkLayerRep(G, r, 'bilinear', m);
  const self: Para = primitive({
    kind: 'bilinear',
    args: [G.name, repToString(r, true)],
    dom: [n],
    cod: [m],
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const B = x.batch,
        X = x.data;
      const y = ctx.alloc([B, m], x.dtype),
        Y = y.data;
      for (let b = 0; b < B; b++) {
        const xo = b * n,
          yo = b * m;
        for (let i = 0; i < n; i++) Y[yo + i] = X[xo + i]!;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) Y[yo + n + i * n + j] = X[xo + i]! * X[xo + j]!;
      }
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc([B, n], x.dtype);
          if (!needDx) return dx;
          const D = dy.data,
            DX = dx.data;
          for (let b = 0; b < B; b++) {
            const xo = b * n,
              yo = b * m;
            for (let i = 0; i < n; i++) {
              let s = D[yo + i]!;
              for (let j = 0; j < n; j++) s += (D[yo + n + i * n + j]! + D[yo + n + j * n + i]!) * X[xo + j]!;
              DX[xo + i] = s;
            }
          }
          return dx;
        },
      };
    },
  });
  return self;
}

/** The representation bilinear(rep) outputs: rep ⊕ rep⊗rep. */
export function bilinearRep(r: Rep): Rep {
  return sum(r, tensorRep(r, r));
}

/** The deepest equivariant MLP `emlp` builds (each level is a layer pair). */
const MAX_EMLP_DEPTH = 64;

/**
 * emlp(G, in, hidden, out, depth): an equivariant MLP — depth × [equivariant(in, hidden ⊕
 * gates) >> gated(hidden)] >> equivariant(hidden, out); with `bilinear`, a bilinear layer
 * before the last linear map; with `nonlinearity: 'norm'`, norm nonlinearities
 * (equivariant(in, hidden) >> norm_gated(hidden), orthogonal groups only) instead of gates. Every piece is equivariant, so the composite is (seed 001:
 * equivariance is closed under composition).
 */
export function emlp(
  group: GroupLike,
  repIn: RepLike,
  repHidden: RepLike,
  repOut: RepLike,
  depth = 2,
  opts: { bilinear?: boolean; nonlinearity?: 'gated' | 'norm' } = {},
): Para {
  const G = toGroup(group),
    rin = toRep(repIn),
    rh = toRep(repHidden),
    rout = toRep(repOut);
  if (!(Number.isInteger(depth) && depth >= 1 && depth <= MAX_EMLP_DEPTH))
    throw new ShapeError(`emlp: depth must be an integer from 1 to ${MAX_EMLP_DEPTH}, got ${depth}`);
  const parts: Para[] = [];
  let cur = rin;
  for (let l = 0; l < depth; l++) {
    if (opts.nonlinearity === 'norm') parts.push(equivariantLinear(G, cur, rh), normGated(G, rh));
    else parts.push(equivariantLinear(G, cur, withGates(rh, G.d)), gated(G, rh));
    cur = rh;
  }
  if (opts.bilinear) {
    parts.push(bilinear(G, rh));
    cur = bilinearRep(rh);
  }
  parts.push(equivariantLinear(G, cur, rout));
  return seq(...parts);
}
