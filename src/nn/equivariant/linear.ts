import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { backend } from '../../tensor/index.js';
import type { Data } from '../../tensor/tensor.js';
import { repSize, repToString, trivial } from '../../symmetry/group/rep.js';
import { cachedBasis, checkLayerRep, toGroup, toRep } from '../../symmetry/solve/resolve.js';
import type { GroupLike, RepLike } from '../../symmetry/solve/resolve.js';
import type { Sparse } from '../../linalg/sparse.js';

/** W = Σ_b c_b B_b (rows of the sparse basis) into `W` (length nOut·nIn). */
export function expandBasis(B: Sparse, c: Data, W: Data): void {
  W.fill(0);
  for (let b = 0; b < B.rows; b++) {
    const cb = c[b]!;
    for (let x = B.rowPtr[b]!; x < B.rowPtr[b + 1]!; x++) W[B.colIdx[x]!]! += cb * B.vals[x]!;
  }
}

/** dc_b += ⟨B_b, dW⟩: the pullback of expandBasis (the basis is orthonormal, so this is the projection). */
export function projectOntoBasis(B: Sparse, dW: Data, dc: Data): void {
  for (let b = 0; b < B.rows; b++) {
    let s = 0;
    for (let x = B.rowPtr[b]!; x < B.rowPtr[b + 1]!; x++) s += B.vals[x]! * dW[B.colIdx[x]!]!;
    dc[b]! += s;
  }
}

/**
 * equivariant(G, in, out): the linear layer whose weights range over the end
 * Hom_G(ρ_in, ρ_out) — W = Σ_b c_b B_b with the orthonormal basis B from the end solver —
 * plus a bias in Hom_G(T(0), ρ_out). The parameters are the coefficients c (EMLP's
 * "equivariant linear layer", Finzi et al. 2021 §6); the pullback sends dW = dyᵀx through
 * the basis: dc_b = ⟨B_b, dW⟩. Equivariant by construction: f(ρ_in(g)x) = ρ_out(g)f(x).
 */
export function equivariantLinear(group: GroupLike, repIn: RepLike, repOut: RepLike): Para {
  const G = toGroup(group),
    rin = toRep(repIn),
    rout = toRep(repOut);
  checkLayerRep(G, rin, 'equivariant');
  checkLayerRep(G, rout, 'equivariant');
  const nIn = repSize(rin, G.d),
    nOut = repSize(rout, G.d);
  const basis = cachedBasis(G, rin, rout);
  const biasBasis = cachedBasis(G, trivial, rout);
  const dim = basis.dim,
    dimB = biasBasis.dim;
  // E‖W‖² = σ²·dim for an orthonormal basis; σ² = nOut/dim gives Var(W_ij) ≈ 1/nIn on average (LeCun).
  const sigma = Math.sqrt(nOut / Math.max(1, dim));
  const params = [
    {
      name: 'coef',
      shape: [dim],
      init: (rng: { normal(): number }, out: Data) => {
        for (let i = 0; i < out.length; i++) out[i] = sigma * rng.normal();
      },
    },
    ...(dimB ? [{ name: 'bias', shape: [dimB], init: (_: unknown, out: Data) => out.fill(0) }] : []),
  ];
  const self: Para = primitive({
    kind: 'equivariant',
    args: [G.name, repToString(rin, true), repToString(rout, true)],
    dom: [nIn],
    cod: [nOut],
    params,
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const be = backend();
      const B = x.batch;
      const W = ctx.alloc([nOut, nIn], x.dtype);
      expandBasis(basis.basis, theta[0]!.data, W.data);
      const y = ctx.alloc([B, nOut], x.dtype);
      be.gemm(false, true, B, nOut, nIn, x.data, W.data, y.data, false);
      if (dimB) {
        const b = ctx.alloc([nOut], x.dtype);
        expandBasis(biasBasis.basis, theta[1]!.data, b.data);
        be.addRowVector(y.data, b.data, B, nOut, y.data, 'identity');
      }
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          if (dTheta) {
            const dW = ctx.alloc([nOut, nIn], x.dtype);
            be.gemm(true, false, nOut, nIn, B, dy.data, x.data, dW.data, false);
            projectOntoBasis(basis.basis, dW.data, dTheta[0]!.data);
            if (dimB) {
              const db = ctx.alloc([nOut], x.dtype);
              be.sumRows(dy.data, B, nOut, db.data, false);
              projectOntoBasis(biasBasis.basis, db.data, dTheta[1]!.data);
            }
          }
          const dx = ctx.alloc([B, nIn], x.dtype);
          if (needDx) be.gemm(false, false, B, nIn, nOut, dy.data, W.data, dx.data, false);
          return dx;
        },
      };
    },
  });
  return self;
}
