import { RangeArgError } from '../../errors.js';
import { atoms } from '../group/rep.js';
import type { Rep } from '../group/rep.js';
import { cycleType } from './index-symmetry.js';
import type { IndexSymmetry } from './index-symmetry.js';
import { irrepDim, irrepName } from './irrep.js';
import type { Irrep, IrrepGroup } from './irrep.js';

/** A weight multiset: exponent m ↦ how many basis vectors have J_z-eigenvalue i·m (exact, as bigints). */
type Weights = Map<number, bigint>;

/** The weights of V: SO(2) ±1 (ψ_1 = e^{±iθ}); SO(3) and O(3) −1, 0, 1 (ℓ = 1). */
const vWeights = (group: IrrepGroup): number[] => (group === 'SO(2)' ? [-1, 1] : [-1, 0, 1]);

function multiply(a: Weights, b: Weights): Weights {
  const out: Weights = new Map();
  for (const [m, x] of a) for (const [n, y] of b) out.set(m + n, (out.get(m + n) ?? 0n) + x * y);
  return out;
}

function addInto(acc: Weights, w: Weights, scale: bigint): void {
  for (const [m, x] of w) acc.set(m, (acc.get(m) ?? 0n) + scale * x);
}

/** p_j(q) = Σ_{w ∈ weights(V)} q^{j·w}: the character of V at the j-th power of a rotation. */
const powerSum = (group: IrrepGroup, j: number): Weights => {
  const w: Weights = new Map();
  for (const v of vWeights(group)) w.set(j * v, (w.get(j * v) ?? 0n) + 1n);
  return w;
};

/** One irrep and its multiplicity in a decomposition (exact: multiplicities of T(64) exceed 2^53). */
export interface DecompositionTerm {
  readonly mul: bigint;
  readonly ir: Irrep;
}

/** ρ ≅ ⊕ mul·ir: what `derive --decompose` prints. */
export interface Decomposition {
  readonly group: IrrepGroup;
  readonly terms: readonly DecompositionTerm[];
  readonly dim: bigint;
}

/** e3nn's notation for a decomposition: `1x0e+1x1e+1x2e`; `0` for the zero representation. */
export function decompositionString(d: Decomposition): string {
  return d.terms.length ? d.terms.map((t) => `${t.mul}x${irrepName(t.ir)}`).join('+') : '0';
}

/**
 * Reads off irreducible multiplicities from the weights of a representation (the characters
 * restricted to a maximal torus, which determine a representation of a compact connected group
 * up to isomorphism — Bröcker & tom Dieck, Representations of Compact Lie Groups, IV.1):
 * for SO(3), n_m = Σ_{ℓ ≥ |m|} mult_ℓ, so mult_ℓ = n_ℓ − n_{ℓ+1}; for SO(2), ψ_k has the
 * weights ±k, so mult_0 = n_0 and mult_k = n_k. `parity` labels every irrep for O(3).
 */
function multiplicities(group: IrrepGroup, w: Weights, parity: 1 | -1 | 0): DecompositionTerm[] {
  const top = Math.max(0, ...w.keys());
  const n = (m: number): bigint => w.get(m) ?? 0n;
  const out: DecompositionTerm[] = [];
  for (let l = 0; l <= top; l++) {
    const mul = group === 'SO(2)' ? n(l) : n(l) - n(l + 1);
    if (mul < 0n) throw new RangeArgError(`the weights are not those of a representation (ℓ = ${l} gets multiplicity ${mul})`);
    if (mul > 0n) out.push({ mul, ir: { l, p: parity } });
  }
  return out;
}

function merge(group: IrrepGroup, parts: readonly DecompositionTerm[]): Decomposition {
  const m = new Map<string, DecompositionTerm>();
  for (const t of parts) {
    const k = irrepName(t.ir);
    m.set(k, { mul: (m.get(k)?.mul ?? 0n) + t.mul, ir: t.ir });
  }
  const terms = [...m.values()].sort((a, b) => a.ir.l - b.ir.l || b.ir.p - a.ir.p);
  return { group, terms, dim: terms.reduce((s, t) => s + t.mul * BigInt(irrepDim(group, t.ir)), 0n) };
}

/**
 * The decomposition of a representation expression into irreducibles of SO(2), SO(3) or O(3)
 * with multiplicities. Every atom (a tensor product of k copies of V or V*; V* ≅ V for these
 * groups) has the weights of V convolved k times, and under O(3) the parity (−1)^k, since V
 * is 1o: T(2) of SO(3) is 1x0+1x1+1x2, of O(3) 1x0e+1x1e+1x2e (the antisymmetric part, a cross
 * product, is a pseudovector), of SO(2) 2x0+1x2.
 */
export function decompose(group: IrrepGroup, rep: Rep): Decomposition {
  const parts: DecompositionTerm[] = [];
  const byDegree = new Map<number, number>();
  for (const a of atoms(rep, 1)) byDegree.set(a.factors.length, (byDegree.get(a.factors.length) ?? 0) + 1);
  for (const [k, count] of byDegree) {
    let w: Weights = new Map([[0, 1n]]);
    for (let j = 0; j < k; j++) w = multiply(w, powerSum(group, 1));
    for (const t of multiplicities(group, w, group === 'O(3)' ? (k % 2 ? -1 : 1) : 0)) parts.push({ mul: t.mul * BigInt(count), ir: t.ir });
  }
  return merge(group, parts);
}

/**
 * The decomposition of the subspace of T(k) with the given index symmetries (e3nn's
 * `ReducedTensorProducts(formula, i=V)`), by the character of its projector
 * P = (1/|H|) Σ_{h ∈ H} sign(h) π_h: tr(π_σ ρ(g)^{⊗k}) = Π over the cycles c of σ of
 * tr ρ(g)^{|c|}, so the weights of P·T(k) are (1/|H|) Σ_h sign(h) Π_c p_{|c|}(q) (the
 * cycle-index formula). `ijkl=jikl=klij` on the vectors of O(3) is 2x0e+2x2e+1x4e (dim 21);
 * `ij=-ji` is 1x1e (1x1 for SO(3)).
 */
export function decomposeSymmetric(group: IrrepGroup, sym: IndexSymmetry): Decomposition {
  if (!sym.consistent) return { group, terms: [], dim: 0n };
  const acc: Weights = new Map();
  for (const h of sym.group) {
    let w: Weights = new Map([[0, 1n]]);
    for (const c of cycleType(h.perm)) w = multiply(w, powerSum(group, c));
    addInto(acc, w, BigInt(h.sign));
  }
  const size = BigInt(sym.group.length);
  for (const [m, x] of acc) {
    if (x % size !== 0n) throw new RangeArgError(`index symmetry '${sym.formula}': the character is not divisible by |H| = ${size} (internal error)`);
    acc.set(m, x / size);
  }
  return merge(group, multiplicities(group, acc, group === 'O(3)' ? (sym.order % 2 ? -1 : 1) : 0));
}
