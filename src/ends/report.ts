import { FiniteCategory } from '../category/finite.js';
import { formatBytes, SolveTooLargeError } from '../symmetry/group/errors.js';
import { formatCount, TooLargeError } from '../errors.js';
import type { Group } from '../symmetry/group/group.js';
import { repSize, repToString } from '../symmetry/group/rep.js';
import type { Rep } from '../symmetry/group/rep.js';
import { equivariantBasis } from '../symmetry/solve/solver.js';
import { setCoend, vectCoend } from './coend.js';
import { setEnd, vectEnd } from './end.js';
import { groupCategory } from './group-category.js';
import type { GroupCategory } from './group-category.js';
import { homFunctor } from './hom.js';
import { homRepFunctor, representation, tensorRepFunctor } from './rep-functors.js';

/** What `paralens end` reports: the end of Hom(ρ_in(−), ρ_out(−)) over BG beside the equivariance solver. */
export interface EndOverGroup {
  readonly group: string;
  readonly order: number;
  readonly in: string;
  readonly out: string;
  readonly inSize: number;
  readonly outSize: number;
  readonly unknowns: number;
  readonly equations: number;
  readonly dim: number;
  /** dim Hom_G(ρ_in, ρ_out) from `equivariantBasis` (generators only, orbits or Cholesky). */
  readonly solverDim: number;
  /** max over basis wedges W and all elements g of ‖ρ_out(g)W − Wρ_in(g)‖_F (W orthonormal). */
  readonly residual: number;
  /** The set-valued end of Hom over BG: the centre Z(G), as element names. */
  readonly centre: readonly string[];
}

/**
 * ∫_{g ∈ BG} Hom(ρ_in(g), ρ_out(g)) (seed 001, "The End to Equivariant Kernels"), computed as an
 * equaliser over every element of G, next to the equivariance solver's dimension and the
 * set-valued end of Hom (the centre).
 */
export function endOverGroup(G: Group, rin: Rep, rout: Rep, opts: { maxOrder?: number; maxBytes?: number } = {}): EndOverGroup {
  const BG = groupCategory(G, opts);
  checkDenseSize('end', G, BG.order, rin, rout, opts.maxBytes);
  const rho = representation(BG, rin),
    sigma = representation(BG, rout);
  const E = vectEnd(homRepFunctor(BG, rho, sigma));
  const nIn = rho.matrices[0]!.rows,
    nOut = sigma.matrices[0]!.rows;
  let residual = 0;
  for (let k = 0; k < E.dim; k++) {
    const W = E.basis.data.subarray(k * E.basis.cols, (k + 1) * E.basis.cols);
    BG.matrices.forEach((_, g) => {
      const S = sigma.matrices[g]!.data,
        R = rho.matrices[g]!.data;
      let s = 0;
      for (let i = 0; i < nOut; i++)
        for (let j = 0; j < nIn; j++) {
          let v = 0;
          for (let t = 0; t < nOut; t++) v += S[i * nOut + t]! * W[t * nIn + j]!;
          for (let t = 0; t < nIn; t++) v -= W[i * nIn + t]! * R[t * nIn + j]!;
          s += v * v;
        }
      residual = Math.max(residual, Math.sqrt(s));
    });
  }
  const solver = equivariantBasis(G, rin, rout);
  const centre = setEnd(homFunctor(BG.category, { check: false }), { limit: BG.order }).wedges.map((w) => BG.category.arrows[w.elements[0]!]!.name);
  return {
    group: G.name,
    order: BG.order,
    in: repToString(rin),
    out: repToString(rout),
    inSize: nIn,
    outSize: nOut,
    unknowns: E.basis.cols || nIn * nOut,
    equations: E.equations,
    dim: E.dim,
    solverDim: solver.dim,
    residual,
    centre,
  };
}

/** A coend of Hom: its classes as lists of arrow names. */
export interface HomCoend {
  readonly category: string;
  /** |⊔_c Hom(c, c)|: the endomorphisms. */
  readonly size: number;
  readonly classes: readonly (readonly string[])[];
}

/**
 * The most work the functor laws of Hom are checked for: Hom is functorial by construction,
 * and checking it costs (composable pairs × objects + arrows²) table comparisons.
 */
const MAX_HOM_CHECK_WORK = 1e5;

/** ∫^c Hom(c, c) over a finite category: endomorphisms modulo h∘f ~ f∘h (the functor laws checked while that is cheap). */
export function homCoend(C: FiniteCategory, name: string, check = true): HomCoend {
  const m = C.arrows.length,
    checkWork = FiniteCategory.composablePairs(C.arrows, C.objects.length) * C.objects.length + m * m;
  const Q = setCoend(homFunctor(C, { check: check && checkWork <= MAX_HOM_CHECK_WORK }));
  return { category: name, size: Q.size, classes: Q.classes.map((cls) => cls.map((e) => e.label)) };
}

/** ∫^{g ∈ BG} Hom(g, g): the conjugacy classes of G. */
export function conjugacyClasses(G: Group | GroupCategory, opts: { maxOrder?: number } = {}): HomCoend {
  const BG = 'category' in G ? G : groupCategory(G, opts);
  return homCoend(BG.category, BG.group, BG.order <= 120);
}

/** What `paralens coend --in R --out S` reports: the coinvariants ρ ⊗_G σ and the character count. */
export interface Coinvariants {
  readonly group: string;
  readonly order: number;
  readonly in: string;
  readonly out: string;
  /** dim(ρ ⊗ σ) before the quotient. */
  readonly size: number;
  readonly dim: number;
  /** (1/|G|) Σ_g χ_ρ(g)·χ_σ(g), the dimension predicted by characters (real orthogonal representations). */
  readonly characterInnerProduct: number;
}

/** ρ ⊗_G σ = ∫^{BG} ρ* ⊗ σ as a quotient, with the character inner product beside it. */
export function coinvariants(G: Group, r: Rep, s: Rep, opts: { maxOrder?: number; maxBytes?: number } = {}): Coinvariants {
  const BG = groupCategory(G, opts);
  checkDenseSize('coend', G, BG.order, r, s, opts.maxBytes);
  const rho = representation(BG, r),
    sigma = representation(BG, s);
  const Q = vectCoend(tensorRepFunctor(BG, rho, sigma));
  const trace = (M: { rows: number; data: Float64Array }): number => {
    let t = 0;
    for (let i = 0; i < M.rows; i++) t += M.data[i * M.rows + i]!;
    return t;
  };
  const chi = rho.matrices.reduce((acc, R, g) => acc + trace(R) * trace(sigma.matrices[g]!), 0) / BG.order;
  return {
    group: G.name,
    order: BG.order,
    in: rho.name,
    out: sigma.name,
    size: rho.matrices[0]!.rows * sigma.matrices[0]!.rows,
    dim: Q.dim,
    characterInnerProduct: chi,
  };
}

/** The most memory the dense functors of `endOverGroup` / `coinvariants` may take (1 GiB by default). */
const DEFAULT_MAX_BYTES = 2 ** 30;

/** The most steps the dense end or coend may take: a nullspace of |G| stacked n×n constraints is about |G|·n³. */
const MAX_DENSE_WORK = 1e9;

/**
 * Refuses, before anything is allocated, an end or coend whose dense (n_in·n_out)² Kronecker
 * matrices would not fit, or whose nullspace would take too long: these constructions work
 * with the whole functor at once (the equivariance solver, `paralens derive`, splits it into
 * blocks instead).
 */
function checkDenseSize(what: string, G: Group, order: number, rin: Rep, rout: Rep, maxBytes = DEFAULT_MAX_BYTES): void {
  const nIn = repSize(rin, G.d),
    nOut = repSize(rout, G.d),
    n = nIn * nOut;
  // the functor keeps both of its n×n actions for every group element, besides ρ and σ themselves
  const bytes = 8 * (2 * order * n * n + order * (nIn * nIn + nOut * nOut));
  const about = `${what} over ${G.name} of ${repToString(rin)} and ${repToString(rout)}: ${n} unknowns`;
  if (!(bytes <= maxBytes)) {
    throw new SolveTooLargeError(
      `${about} need about ${formatBytes(bytes)} of dense matrices but the limit is ${formatBytes(maxBytes)}; use smaller representations (paralens derive solves Hom_G block by block)`,
      bytes,
    );
  }
  // the nullspace of the stacked constraints, and the residual of every basis map at every element
  const work = order * n * n * (n + nIn + nOut);
  if (!(work <= MAX_DENSE_WORK)) {
    throw new TooLargeError(
      `${about} over ${order} elements take about ${formatCount(work)} steps of dense linear algebra; the limit is ${formatCount(MAX_DENSE_WORK)} (paralens derive solves Hom_G block by block)`,
      { bytes, work },
    );
  }
}
