import type { FiniteCategory } from '../../category/finite.js';
import { emptySieve, maximalSieve, sieveImplies, sieveJoin, sieveLeq, sieveMeet, sieves } from '../presheaf/sieve.js';
import type { Sieve } from '../presheaf/sieve.js';
import { ToposError } from '../../category/errors.js';

/**
 * The propositions of a language as a finite Heyting algebra (Belfiore–Bennequin §2.3, §3.3):
 * classical when the propositions are the subsets of a finite set of states, intuitionistic
 * when they are the sieves Ω(c) of a site.
 */
export interface PropositionAlgebra<T> {
  readonly top: T;
  readonly bottom: T;
  meet(a: T, b: T): T;
  join(a: T, b: T): T;
  implies(a: T, b: T): T;
  leq(a: T, b: T): boolean;
  elements(): readonly T[];
}

/** The Boolean algebra of subsets of n states, as bitmasks (n ≤ 30). */
export function stateAlgebra(n: number): PropositionAlgebra<number> {
  if (!(Number.isInteger(n) && n >= 1 && n <= 30)) throw new ToposError(`a state algebra needs 1 … 30 states, got ${n}`);
  const top = 2 ** n - 1;
  return {
    top,
    bottom: 0,
    meet: (a, b) => a & b,
    join: (a, b) => a | b,
    implies: (a, b) => (~a | b) & top,
    leq: (a, b) => (a & ~b) === 0,
    elements: () => Array.from({ length: top + 1 }, (_, i) => i),
  };
}

/** The Heyting algebra Ω(c) of sieves on c (intuitionistic when C is not a groupoid). */
export function sieveAlgebra(C: FiniteCategory, c: number): PropositionAlgebra<Sieve> {
  const all = sieves(C, c);
  return {
    top: maximalSieve(C, c),
    bottom: emptySieve(c),
    meet: sieveMeet,
    join: sieveJoin,
    implies: (a, b) => sieveImplies(C, a, b),
    leq: sieveLeq,
    elements: () => all,
  };
}

/** A theory: the conjunction of its axioms (the strongest proposition they jointly assert). */
export function theoryOf<T>(L: PropositionAlgebra<T>, axioms: readonly T[]): T {
  return axioms.reduce((a, b) => L.meet(a, b), L.top);
}

/** The measure m(A) = Σ_{s ∈ A} p_s of a set of states (bitmask) under a probability p. */
export function stateMeasure(p: readonly number[], A: number): number {
  let m = 0;
  p.forEach((ps, s) => {
    if (A & (1 << s)) m += ps;
  });
  return m;
}

/** Carnap–Bar-Hillel content cont(A) = m(¬A) = 1 − m(A) (Carnap & Bar-Hillel 1952, §6). */
export function contentCBH(p: readonly number[], A: number): number {
  return 1 - stateMeasure(p, A);
}

/** Carnap–Bar-Hillel information inf(A) = −log₂ m(A) bits (Carnap & Bar-Hillel 1952, §7); ∞ for a contradiction. */
export function informationCBH(p: readonly number[], A: number): number {
  const m = stateMeasure(p, A);
  return m > 0 ? -Math.log2(m) + 0 : Infinity;
}

/** The theory T conditioned by the question Q: T|Q = (Q ⇒ T) (Belfiore–Bennequin §3.4). */
export function conditionTheory<T>(L: PropositionAlgebra<T>, T: T, Q: T): T {
  return L.implies(Q, T);
}

/** φ^Q(T) = ψ(T|Q) − ψ(T): how much the value ψ of T changes when T is conditioned by Q (Belfiore–Bennequin §3.5). */
export function semanticPhi<T>(L: PropositionAlgebra<T>, psi: (t: T) => number, Q: T, T: T): number {
  return psi(conditionTheory(L, T, Q)) - psi(T);
}

/**
 * The semantic mutual information I(Q₁;Q₂)(T) = φ^{Q₁}(T) + φ^{Q₂}(T) − φ^{Q₁∧Q₂}(T)
 * (Belfiore–Bennequin §3.5). Because T|(Q₁∧Q₂) = (T|Q₂)|Q₁, φ is a 1-cocycle,
 * φ^{Q₁∧Q₂}(T) = φ^{Q₂}(T) + φ^{Q₁}(T|Q₂), and so I(Q₁;Q₂)(T) = φ^{Q₁}(T) − φ^{Q₁}(T|Q₂),
 * the analogue of Shannon's I(X;Y) = H(X) − Y.H(X).
 */
export function semanticMutualInformation<T>(L: PropositionAlgebra<T>, psi: (t: T) => number, Q1: T, Q2: T, T: T): number {
  return semanticPhi(L, psi, Q1, T) + semanticPhi(L, psi, Q2, T) - semanticPhi(L, psi, L.meet(Q1, Q2), T);
}
