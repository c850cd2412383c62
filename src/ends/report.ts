import { FiniteCategory } from '../category/finite.js';
import { formatBytes, SolveTooLargeError } from '../symmetry/group/errors.js';
import { formatCount, TooLargeError } from '../errors.js';
import type { Group } from '../symmetry/group/group.js';
import { repMatrix, repSize, repToString } from '../symmetry/group/rep.js';
import type { Rep } from '../symmetry/group/rep.js';
import { equivariantBasis } from '../symmetry/solve/solver.js';
import { setCoend, vectCoend } from './coend.js';
import { setEnd, vectEnd } from './end.js';
import { groupCategory } from './group-category.js';
import type { GroupCategory } from './group-category.js';
import { homFunctor } from './hom.js';
import { homRepFunctor, representation, tensorRepFunctor } from './rep-functors.js';
import type { Mat } from '../linalg/matrix.js';
import { entriesOf } from './entries.js';

/** What `paralens end` reports: the end of Hom(ρ_in(−), ρ_out(−)) over BG beside the equivariance solver. */
export interface EndOverGroup {
  readonly group: string;
  readonly order: number;
  readonly in: string;
  readonly out: string;
  readonly inSize: number;
  readonly outSize: number;
  readonly unknowns: number;
  /** Equations of the equaliser: n_out·n_in per generating arrow. */
  readonly equations: number;
  /** The generating arrows the equaliser used (G's generators). */
  readonly generators: number;
  readonly dim: number;
  /** dim Hom_G(ρ_in, ρ_out) from `equivariantBasis` (generators only, orbits or Cholesky). */
  readonly solverDim: number;
  /** max over basis wedges W and the elements g checked of ‖ρ_out(g)W − Wρ_in(g)‖_F (W orthonormal). */
  readonly residual: number;
  /** Which elements the residual was measured at: all of G, or (when that would cost more than the limit) its generators. */
  readonly residualOver: 'elements' | 'generators';
  /** The set-valued end of Hom over BG: the centre Z(G), as element names. */
  readonly centre: readonly string[];
}

/**
 * ∫_{g ∈ BG} Hom(ρ_in(g), ρ_out(g)) (seed 001, "The End to Equivariant Kernels"), computed as an
 * equaliser over the generators of G (an equaliser needs only the generating arrows: generators.ts),
 * next to the equivariance solver's dimension, the residual of every basis map at every element
 * (the check that the generators' equaliser is the end over all of BG), and the set-valued end
 * of Hom (the centre). Its cost is planned first (planOverGenerators) and refused beyond the limits.
 */
export function endOverGroup(G: Group, rin: Rep, rout: Rep, opts: { maxOrder?: number; maxBytes?: number } = {}): EndOverGroup {
  const BG = groupCategory(G, opts);
  const plan = planOverGenerators('end', G, BG, rin, rout, opts.maxBytes);
  const rho = representation(BG, rin),
    sigma = representation(BG, rout);
  const E = vectEnd(homRepFunctor(BG, rho, sigma), { arrows: BG.generators });
  const nIn = plan.nIn,
    nOut = plan.nOut;
  // every element when that is affordable, else the generators (the end itself is exact either way)
  const everyElement = E.dim * plan.residualEach * BG.order <= MAX_RESIDUAL_WORK;
  const checked = everyElement ? BG.matrices.map((_, g) => g) : BG.generators;
  let residual = 0;
  const A = new Float64Array(nOut * nIn);
  for (const g of checked) {
    const S = entriesOf(sigma.matrices[g]!),
      R = entriesOf(rho.matrices[g]!);
    for (let k = 0; k < E.dim; k++) {
      const W = E.basis.data.subarray(k * E.basis.cols, (k + 1) * E.basis.cols);
      // A = σ(g)W − Wρ(g), through the nonzeros of σ(g) and ρ(g)
      A.fill(0);
      for (let e = 0; e < S.value.length; e++) {
        const i = S.row[e]!,
          t = S.col[e]!,
          v = S.value[e]!;
        for (let j = 0; j < nIn; j++) A[i * nIn + j] = A[i * nIn + j]! + v * W[t * nIn + j]!;
      }
      for (let e = 0; e < R.value.length; e++) {
        const t = R.row[e]!,
          j = R.col[e]!,
          v = R.value[e]!;
        for (let i = 0; i < nOut; i++) A[i * nIn + j] = A[i * nIn + j]! - W[i * nIn + t]! * v;
      }
      let s2 = 0;
      for (let x = 0; x < A.length; x++) s2 += A[x]! * A[x]!;
      residual = Math.max(residual, Math.sqrt(s2));
    }
  }
  const solver = equivariantBasis(G, rin, rout);
  const centre = setEnd(homFunctor(BG.category, { check: false }), { limit: BG.order, arrows: BG.generators }).wedges.map(
    (w) => BG.category.arrows[w.elements[0]!]!.name,
  );
  return {
    group: G.name,
    order: BG.order,
    in: repToString(rin),
    out: repToString(rout),
    inSize: nIn,
    outSize: nOut,
    unknowns: E.basis.cols || nIn * nOut,
    equations: E.equations,
    generators: BG.generators.length,
    dim: E.dim,
    solverDim: solver.dim,
    residual,
    residualOver: everyElement ? 'elements' : 'generators',
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

/** ∫^c Hom(c, c) over a finite category: endomorphisms modulo h∘f ~ f∘h over generating arrows (the functor laws checked while that is cheap). */
export function homCoend(C: FiniteCategory, name: string, check = true, arrows?: readonly number[]): HomCoend {
  const m = C.arrows.length,
    checkWork = FiniteCategory.composablePairs(C.arrows, C.objects.length) * C.objects.length + m * m;
  const Q = setCoend(homFunctor(C, { check: check && checkWork <= MAX_HOM_CHECK_WORK }), arrows ? { arrows } : {});
  return { category: name, size: Q.size, classes: Q.classes.map((cls) => cls.map((e) => e.label)) };
}

/** ∫^{g ∈ BG} Hom(g, g): the conjugacy classes of G (x ~ hxh⁻¹ for the generators h). */
export function conjugacyClasses(G: Group | GroupCategory, opts: { maxOrder?: number } = {}): HomCoend {
  const BG = 'category' in G ? G : groupCategory(G, opts);
  return homCoend(BG.category, BG.group, BG.order <= 120, BG.generators);
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

/** ρ ⊗_G σ = ∫^{BG} ρ* ⊗ σ as a quotient (over G's generators), with the character inner product beside it (over every element). */
export function coinvariants(G: Group, r: Rep, s: Rep, opts: { maxOrder?: number; maxBytes?: number } = {}): Coinvariants {
  const BG = groupCategory(G, opts);
  planOverGenerators('coend', G, BG, r, s, opts.maxBytes);
  const rho = representation(BG, r),
    sigma = representation(BG, s);
  const Q = vectCoend(tensorRepFunctor(BG, rho, sigma), { arrows: BG.generators });
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

/** The most memory the functors of `endOverGroup` / `coinvariants` may take (1 GiB by default). */
const DEFAULT_MAX_BYTES = 2 ** 30;

/** The most elementary steps they may take (a few seconds: a step is a multiply-add or an entry written, 2–5 ns here). */
const MAX_DENSE_WORK = 1e9;

/** The residual is measured at every element when that takes at most this many multiply-adds (about half a second), else at the generators. */
const MAX_RESIDUAL_WORK = 1e8;

/** Steps per entry of an element's ρ(g) built from g (the Kronecker chain of each atom, the entries placed, the array allocated): measured. */
const REP_ENTRY_STEPS = 16;

/** What an end or coend over BG will cost, as planOverGenerators found it. */
interface GeneratorPlan {
  readonly nIn: number;
  readonly nOut: number;
  readonly bytes: number;
  readonly work: number;
  /** Steps to measure one basis map's residual at one element. */
  readonly residualEach: number;
}

/** Nonzeros of a matrix, and whether it is a permutation matrix (one 1 in every row and column). */
function shapeOf(M: Mat): { nonzeros: number; permutation: boolean } {
  let nz = 0,
    ones = true;
  const cols = new Uint8Array(M.cols);
  for (let i = 0; i < M.rows; i++) {
    let inRow = 0;
    for (let j = 0; j < M.cols; j++) {
      const v = M.data[i * M.cols + j]!;
      if (v === 0) continue;
      nz++;
      inRow++;
      if (v !== 1 || cols[j] !== 0) ones = false;
      else cols[j] = 1;
    }
    if (inRow !== 1) ones = false;
  }
  return { nonzeros: nz, permutation: ones };
}

/**
 * The plan of the algorithm that runs, refused before it is built when it exceeds the limits:
 * G's elements as matrices on V (order·d²) and ρ, σ at every element (order·(n_in² + n_out²),
 * for the residual and the characters); for each generator, the functor's two n×n actions
 * (n = n_in·n_out) by their nonzeros (entries.ts: no n×n matrix is built) as constraints; the nullspace — by
 * union–find when every generator acts by permutation matrices (each constraint then identifies
 * two unknowns), else pivoted Cholesky on the n×n Gram matrix (n³/3); the basis it returns (at
 * most n vectors of n: the dimension shows only once solved); and at least one basis
 * map's residual at every element. Generator matrices are built to see their nonzeros, after
 * checking that one of them fits.
 */
function planOverGenerators(what: string, G: Group, BG: GroupCategory, rin: Rep, rout: Rep, maxBytes = DEFAULT_MAX_BYTES): GeneratorPlan {
  const nIn = repSize(rin, G.d),
    nOut = repSize(rout, G.d),
    n = nIn * nOut,
    order = BG.order,
    gens = BG.generators.length;
  const about = `${what} over ${G.name} of ${repToString(rin)} and ${repToString(rout)}: ${formatCount(n)} unknowns`;
  const tooMuch = (bytes: number): never => {
    throw new SolveTooLargeError(
      `${about} need about ${formatBytes(bytes)} (ρ and σ at ${order} elements, ${gens} generators' constraints, the nullspace and its basis) but the limit is ${formatBytes(maxBytes)}; use smaller representations (paralens derive solves Hom_G block by block)`,
      bytes,
    );
  };
  // the matrices that exist whatever the generators look like
  const fixed = 8 * order * (G.d * G.d + nIn * nIn + nOut * nOut);
  if (!(fixed <= maxBytes) || !(n < 2 ** 31)) tooMuch(fixed);
  const els = BG.matrices;
  let nnz = 0,
    nnzIn = 0,
    nnzOut = 0,
    permutation = true;
  for (const g of BG.generators) {
    const r = shapeOf(repMatrix(rin, els[g]!)),
      s = shapeOf(repMatrix(rout, els[g]!));
    nnzIn = Math.max(nnzIn, r.nonzeros);
    nnzOut = Math.max(nnzOut, s.nonzeros);
    permutation &&= r.permutation && s.permutation;
    nnz += s.nonzeros * nIn + nOut * r.nonzeros; // the constraints σ(g)W − Wρ(g) of this generator
  }
  // the nullspace: union–find, or the n×n Gram matrix and its factor; then the basis (or the
  // coend's projection), at most n rows of n — the dimension is known only once it is solved
  const nullBytes = (permutation ? 16 * n : 16 * n * n) + 8 * n * n;
  const bytes = fixed + 32 * nnz + nullBytes;
  if (!(bytes <= maxBytes)) tooMuch(bytes);
  // an element's matrices have the generators' nonzeros when they are permutations, else as many as they like
  const residualEach = permutation ? nnzOut * nIn + nOut * nnzIn : nOut * nOut * nIn + nOut * nIn * nIn;
  const work = REP_ENTRY_STEPS * order * (nIn * nIn + nOut * nOut) + 8 * nnz + (permutation ? 4 * nnz : nnz + (n * n * n) / 3) + order * residualEach;
  if (!(work <= MAX_DENSE_WORK)) {
    throw new TooLargeError(
      `${about} over ${gens} generators and ${order} elements take about ${formatCount(work)} steps of linear algebra (${permutation ? 'union–find on permutation actions' : 'a Cholesky nullspace'}); the limit is ${formatCount(MAX_DENSE_WORK)} (paralens derive solves Hom_G block by block)`,
      { bytes, work },
    );
  }
  return { nIn, nOut, bytes, work, residualEach };
}
