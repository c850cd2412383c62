import { O } from '../group/group.js';
import { T } from '../group/rep.js';
import { equivariantBasis } from '../solve/solver.js';
import { clebschGordan, couples } from '../irreps/clebsch-gordan.js';
import type { Irrep } from '../irreps/irrep.js';
import { irrepName } from '../irreps/irrep.js';

/**
 * The kernels of points(n, lmax): n points of R³ under E(3) × S(n), the coordinates carried with
 * the features. Translations reduce a pair (x_q, x_k) to r = x_k − x_q; the O(3)-invariant
 * scalars of r are the functions of the invariant bilinear forms on V — Hom_O(3)(V⊗V, T(0)),
 * which the end solver finds one-dimensional (δ/√3), so the invariants are the functions of
 * |r|² — expanded in a radial basis φ_k(|r|). The value maps are the equivariant kernels
 * W(r): ℓ_in → ℓ_out with W(g·r) = ρ_out(g)W(r)ρ_in(g)⁻¹ (Thomas et al. 2018, Weiler et al.
 * 2018): W(r) = Σ_J φ(|r|)·C^{ℓ_in,J,ℓ_out}·Y_J(r̂), one term per path ℓ_in ⊗ J → ℓ_out allowed
 * by the triangle rule and parity, with the Clebsch–Gordan coefficients C derived by the end
 * solver (src/symmetry/irreps/clebsch-gordan.ts). Features are the irreps of natural parity
 * ℓ ≤ lmax: 0e, 1o, 2e, … (scalars, vectors, …).
 */
export interface DerivedPoints {
  readonly n: number;
  readonly lmax: number;
  /** The invariant bilinear forms on V (3×3 each, row-major): one, δ/√3. */
  readonly invariantForms: readonly Float64Array[];
  /** The radial basis φ_k(r) = exp(−γ(r − μ_k)²): its centres and γ. */
  readonly radial: { readonly centres: Float64Array; readonly gamma: number };
  /** The equivariant value maps, one per path, with the Clebsch–Gordan tensor [m_in][m_J][m_out]. */
  readonly valueMaps: readonly ValuePath[];
  readonly seconds: number;
}

export interface ValuePath {
  readonly in: Irrep;
  readonly edge: Irrep;
  readonly out: Irrep;
  readonly cg: Float64Array;
}

/** The radial basis of the point geometries: 16 Gaussians on [0, 6] with γ = 1 (inputs of unit scale; distances beyond stay distinct by |r| itself). */
export const RADIAL_BASIS = { count: 16, rmax: 6, gamma: 1 } as const;

/** The centres μ_k of the radial basis. */
export function radialCentres(): Float64Array {
  const { count, rmax } = RADIAL_BASIS;
  return Float64Array.from({ length: count }, (_, k) => (k * rmax) / (count - 1));
}

/** The irrep of natural parity of degree ℓ (O(3)): 0e, 1o, 2e, 3o, … */
export const naturalIrrep = (l: number): Irrep => ({ l, p: l % 2 ? -1 : 1 });

/** Derives the invariant scalars and the value maps of points(n, lmax). */
export function derivePoints(n: number, lmax: number): DerivedPoints {
  const t0 = performance.now();
  const inv = equivariantBasis(O(3), T(2), T(0));
  const invariantForms = Array.from({ length: inv.dim }, (_, b) => {
    const m = new Float64Array(9);
    for (let x = inv.basis.rowPtr[b]!; x < inv.basis.rowPtr[b + 1]!; x++) m[inv.basis.colIdx[x]!] = inv.basis.vals[x]!;
    return m;
  });
  const valueMaps: ValuePath[] = [];
  for (let li = 0; li <= lmax; li++)
    for (let J = 0; J <= lmax; J++)
      for (let lo = 0; lo <= lmax; lo++) {
        const a = naturalIrrep(li),
          e = naturalIrrep(J),
          o = naturalIrrep(lo);
        if (couples('O(3)', a, e, o)) valueMaps.push({ in: a, edge: e, out: o, cg: clebschGordan(li, J, lo) });
      }
  return { n, lmax, invariantForms, radial: { centres: radialCentres(), gamma: RADIAL_BASIS.gamma }, valueMaps, seconds: (performance.now() - t0) / 1000 };
}

/** A value path as text: `1o ⊗ Y_1 → 0e`. */
export const pathText = (p: ValuePath): string => `${irrepName(p.in)} ⊗ Y_${p.edge.l} → ${irrepName(p.out)}`;
