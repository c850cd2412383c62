import { repMatrix, repToString } from '../symmetry/group/rep.js';
import type { Rep } from '../symmetry/group/rep.js';
import { eye, kron, transpose } from '../linalg/matrix.js';
import type { Mat } from '../linalg/matrix.js';
import { FunctorError } from '../category/errors.js';
import type { GroupCategory } from './group-category.js';
import { vectDifunctor } from '../category/vect-functor.js';
import type { VectCheckOptions, VectDifunctor } from '../category/vect-functor.js';
import { entriesOf, identityEntries, kronEntries, transposeEntries } from './entries.js';
import type { SparseActions } from './entries.js';

/**
 * Functoriality is checked by default while |G|²·(dim F)² ≤ CHECK_BUDGET (the check costs
 * O(|G|²) products of dim F × dim F matrices); from a representation expression ρ is a
 * homomorphism by construction, so larger cases skip it unless asked.
 */
const CHECK_BUDGET = 4e6;

/** A representation of BG given by one matrix per element (in the order of G.category's arrows). */
export interface RepMatrices {
  readonly name: string;
  readonly matrices: readonly Mat[];
}

/** ρ(g) for every element of G, from a representation expression (V, T(2), V+T(0), …). */
export function representation(G: GroupCategory, rho: Rep): RepMatrices {
  return { name: repToString(rho), matrices: G.matrices.map((g) => repMatrix(rho, g)) };
}

function sizeOf(G: GroupCategory, r: RepMatrices): number {
  if (r.matrices.length !== G.order)
    throw new FunctorError(`representation ${r.name} gives ${r.matrices.length} matrices but ${G.group} has ${G.order} elements`);
  const n = r.matrices[0]!.rows;
  r.matrices.forEach((M, g) => {
    if (M.rows !== n || M.cols !== n)
      throw new FunctorError(`representation ${r.name}: the matrix of ${G.category.arrows[g]!.name} is ${M.rows}×${M.cols}, expected ${n}×${n} like that of e`);
  });
  return n;
}

/**
 * Hom(ρ(−), σ(−)): BG^op × BG → Vect, F(★, ★) = Hom(R^{n_ρ}, R^{n_σ}) (W stored row-major,
 * n_σ × n_ρ), F(g, ★)(W) = W·ρ(g) and F(★, g)(W) = σ(g)·W. Its end is the space of W with
 * σ(g)W = Wρ(g) for all g: the equivariant maps Hom_G(ρ, σ) (seed 001, "The End to
 * Equivariant Kernels"). With vec row-major, vec(AWB) = (A ⊗ Bᵀ)vec(W).
 */
export function homRepFunctor(G: GroupCategory, rho: RepMatrices, sigma: RepMatrices, opts: VectCheckOptions = {}): VectDifunctor & SparseActions {
  const nIn = sizeOf(G, rho),
    nOut = sizeOf(G, sigma);
  const Iin = eye(nIn),
    Iout = eye(nOut);
  const F = vectDifunctor(
    {
      name: `Hom(${rho.name}, ${sigma.name})`,
      category: G.category,
      dim: () => nIn * nOut,
      left: (g) => kron(Iout, transpose(rho.matrices[g]!)),
      right: (_a, g) => kron(sigma.matrices[g]!, Iin),
    },
    { ...opts, check: opts.check ?? G.order ** 2 * (nIn * nOut) ** 2 <= CHECK_BUDGET },
  );
  // the same actions by their nonzeros: nnz(ρ(g))·n_out and nnz(σ(g))·n_in of them, not (n_in·n_out)²
  return {
    ...F,
    leftEntries: (g) => kronEntries(identityEntries(nOut), transposeEntries(entriesOf(rho.matrices[g]!))),
    rightEntries: (_a, g) => kronEntries(entriesOf(sigma.matrices[g]!), identityEntries(nIn)),
  };
}

/**
 * ρ* ⊗ σ as a functor BG^op × BG → Vect: F(★, ★) = R^{n_ρ} ⊗ R^{n_σ}, F(g, ★) = ρ(g)ᵀ ⊗ I (ρ as
 * a right G-module) and F(★, g) = I ⊗ σ(g). Its coend is ρ ⊗_G σ, the coinvariants
 * (ρ ⊗ σ)_G; for real orthogonal representations its dimension is the character inner product
 * ⟨χ_ρ, χ_σ⟩ = (1/|G|) Σ_g χ_ρ(g)χ_σ(g).
 */
export function tensorRepFunctor(G: GroupCategory, rho: RepMatrices, sigma: RepMatrices, opts: VectCheckOptions = {}): VectDifunctor & SparseActions {
  const nR = sizeOf(G, rho),
    nS = sizeOf(G, sigma);
  const IR = eye(nR),
    IS = eye(nS);
  const F = vectDifunctor(
    {
      name: `${rho.name} ⊗ ${sigma.name}`,
      category: G.category,
      dim: () => nR * nS,
      left: (g) => kron(transpose(rho.matrices[g]!), IS),
      right: (_a, g) => kron(IR, sigma.matrices[g]!),
    },
    { ...opts, check: opts.check ?? G.order ** 2 * (nR * nS) ** 2 <= CHECK_BUDGET },
  );
  return {
    ...F,
    leftEntries: (g) => kronEntries(transposeEntries(entriesOf(rho.matrices[g]!)), identityEntries(nS)),
    rightEntries: (_a, g) => kronEntries(identityEntries(nR), entriesOf(sigma.matrices[g]!)),
  };
}
