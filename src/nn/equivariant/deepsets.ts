import { RangeArgError } from '../../errors.js';
import type { Para } from '../../para/para.js';
import { symmetric } from '../../symmetry/group/group.js';
import { V } from '../../symmetry/group/rep.js';
import { cachedBasis } from '../../symmetry/solve/resolve.js';
import { basisMatrix } from '../../symmetry/solve/solver.js';
import { pointMixing } from './point-mixing.js';

/** The n×n matrices of the derived basis of Hom_G(V, V). */
export function mixersOf(b: ReturnType<typeof cachedBasis>): Float64Array[] {
  return Array.from({ length: b.dim }, (_, k) => basisMatrix(b, k).data);
}

/**
 * deepsets(n, cin, cout): the S(n)-equivariant layer on sets of n points with cin channels
 * (Zaheer et al. 2017). Not hand-written: its point mixers are the derived basis of
 * Hom_S(n)(V, V), which the end solver finds to be span{I, 11ᵀ} (seed 001, "Permutations:
 * DeepSets"), so y_i = Λ₁x_i + Λ₂·Σ_j x_j + b up to the basis' normalisation.
 */
export function deepsetsLayer(n: number, cin: number, cout: number): Para {
  for (const [k, v] of [
    ['n', n],
    ['cin', cin],
    ['cout', cout],
  ] as const) {
    if (!(Number.isInteger(v) && v > 0)) throw new RangeArgError(`deepsets(n,cin,cout) needs positive integers, got ${k}=${v}`);
  }
  const mixers = mixersOf(cachedBasis(symmetric(n), V, V));
  return pointMixing('set_equivariant', [n, cin, cout], mixers, n, cin, cout);
}
