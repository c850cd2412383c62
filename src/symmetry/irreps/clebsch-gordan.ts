import { RangeArgError } from '../../errors.js';
import { soGenerators } from '../group/group.js';
import { sparseEye, sparseFromDense, sparseKron, sparseLinComb } from '../../linalg/sparse.js';
import { solveEnd } from '../solve/solver.js';
import type { Irrep, IrrepGroup } from './irrep.js';
import { so3IrrepLie } from './wigner.js';

/** Whether ℓ₁ ⊗ ℓ₂ contains ℓ₃ (the triangle rule |ℓ₁ − ℓ₂| ≤ ℓ₃ ≤ ℓ₁ + ℓ₂), and for O(3) p₃ = p₁p₂. */
export function couples(group: IrrepGroup, a: Irrep, b: Irrep, c: Irrep): boolean {
  if (group === 'SO(2)') return c.l === a.l + b.l || c.l === Math.abs(a.l - b.l);
  const tri = Math.abs(a.l - b.l) <= c.l && c.l <= a.l + b.l;
  return tri && (group === 'SO(3)' || c.p === a.p * b.p);
}

const cache = new Map<string, Float64Array>();

/**
 * The real Clebsch–Gordan coefficients C[m₁][m₂][m₃] of SO(3) (e3nn's `wigner_3j` layout,
 * (2ℓ₁+1)×(2ℓ₂+1)×(2ℓ₃+1), Frobenius norm 1), derived, not tabulated: the map
 * W: ℓ₁ ⊗ ℓ₂ → ℓ₃, W_{m₃,(m₁m₂)} = C[m₁][m₂][m₃], spans the end Hom_SO(3)(ℓ₁ ⊗ ℓ₂, ℓ₃), found by
 * the end solver from the Lie-algebra generators dρ_ℓ(A) of the three irreps
 * (dρ_ℓ₃(A)W = W(dρ_ℓ₁(A) ⊗ I + I ⊗ dρ_ℓ₂(A)) for the three generators A of so(3)). The end
 * is one-dimensional exactly when the triangle rule holds (Schur's lemma: the irreps of SO(3)
 * are absolutely irreducible and ℓ₁ ⊗ ℓ₂ contains ℓ₃ at most once); the sign is fixed so
 * that the first non-zero coefficient (in index order) is positive. The tests check it against
 * the Racah formula carried into the real basis.
 */
export function clebschGordan(l1: number, l2: number, l3: number): Float64Array {
  const key = `${l1},${l2},${l3}`;
  const hit = cache.get(key);
  if (hit) return hit;
  if (!(Math.abs(l1 - l2) <= l3 && l3 <= l1 + l2))
    throw new RangeArgError(`Clebsch–Gordan: ${l1} ⊗ ${l2} does not contain ${l3} (needs |ℓ₁ − ℓ₂| ≤ ℓ₃ ≤ ℓ₁ + ℓ₂)`);
  const d1 = 2 * l1 + 1,
    d2 = 2 * l2 + 1,
    d3 = 2 * l3 + 1;
  const gens = soGenerators(3).map((A) => {
    const j1 = sparseFromDense(so3IrrepLie(l1, A), 1e-13),
      j2 = sparseFromDense(so3IrrepLie(l2, A), 1e-13);
    return {
      out: sparseFromDense(so3IrrepLie(l3, A), 1e-13),
      in: sparseLinComb([
        { s: 1, m: sparseKron(j1, sparseEye(d2)) },
        { s: 1, m: sparseKron(sparseEye(d1), j2) },
      ]),
    };
  });
  const end = solveEnd(gens, d3, d1 * d2, { denseLimit: 1400 });
  if (end.dim !== 1) throw new RangeArgError(`Clebsch–Gordan ${l1} ⊗ ${l2} → ${l3}: the end solver found a ${end.dim}-dimensional Hom (expected 1)`);
  const C = new Float64Array(d1 * d2 * d3);
  let sign = 0;
  for (let m1 = 0; m1 < d1; m1++)
    for (let m2 = 0; m2 < d2; m2++)
      for (let m3 = 0; m3 < d3; m3++) {
        let v = end.rows[m3 * d1 * d2 + m1 * d2 + m2]!;
        if (Math.abs(v) < 1e-13) v = 0;
        if (!sign && v !== 0) sign = v > 0 ? 1 : -1;
        C[(m1 * d2 + m2) * d3 + m3] = v;
      }
  for (let i = 0; i < C.length; i++) C[i]! *= sign;
  if (cache.size > 512) cache.clear();
  cache.set(key, C);
  return C;
}
