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

/**
 * A set of states, as the bits of a bigint: state s is in A when bit s is set. A bigint has
 * no width limit (a number used with `1 << s` wraps from 32 states on); a number is accepted
 * where it is a non-negative safe integer and read as the same bits.
 */
export type StateSet = bigint;

/** The bits of A as a bigint, after checking that A names only states 0 … n−1. */
export function toStateSet(A: StateSet | number, n: number): StateSet {
  if (typeof A === 'number' && !(Number.isSafeInteger(A) && A >= 0))
    throw new ToposError(`a set of states must be a non-negative integer bitmask (or a bigint), got ${A}`);
  const a = BigInt(A);
  if (a < 0n) throw new ToposError(`a set of states must be a non-negative bitmask, got ${a}`);
  if (a >> BigInt(n) !== 0n) throw new ToposError(`a set of states names state ${a.toString(2).length - 1} but there are only ${n} states (0 … ${n - 1})`);
  return a;
}

/** The states in A, in increasing order. */
export function statesOf(A: StateSet): number[] {
  const out: number[] = [];
  for (let s = 0, a = A; a > 0n; s++, a >>= 1n) if (a & 1n) out.push(s);
  return out;
}

/**
 * The Boolean algebra of subsets of n states, as bigint bitmasks (any n ≥ 1). Its elements
 * can be listed only for n ≤ 20 (2ⁿ of them).
 */
export function stateAlgebra(n: number): PropositionAlgebra<StateSet> {
  if (!(Number.isInteger(n) && n >= 1)) throw new ToposError(`a state algebra needs an integer number of states ≥ 1, got ${n}`);
  const top = (1n << BigInt(n)) - 1n;
  return {
    top,
    bottom: 0n,
    meet: (a, b) => a & b,
    join: (a, b) => a | b,
    implies: (a, b) => (~a | b) & top,
    leq: (a, b) => (a & ~b) === 0n,
    elements: () => {
      if (n > 20) throw new ToposError(`the ${n}-state algebra has 2^${n} elements; they can be listed only up to 20 states`);
      return Array.from({ length: Number(top) + 1 }, (_, i) => BigInt(i));
    },
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

/** Throws unless p is a probability vector: finite, non-negative entries summing to 1 (within 1e-9). */
export function checkProbabilities(p: readonly number[]): void {
  if (!p.length) throw new ToposError('a probability on the states needs at least one state');
  let z = 0;
  p.forEach((ps, s) => {
    if (!(Number.isFinite(ps) && ps >= 0)) throw new ToposError(`p[${s}] = ${ps}: a probability of a state must be a finite number ≥ 0`);
    z += ps;
  });
  if (Math.abs(z - 1) > 1e-9) throw new ToposError(`the probabilities of the ${p.length} states sum to ${z}, not 1`);
}

/** The measure m(A) = Σ_{s ∈ A} p_s of a set of states under a probability vector p (checked). */
export function stateMeasure(p: readonly number[], A: StateSet | number): number {
  checkProbabilities(p);
  let m = 0;
  for (const s of statesOf(toStateSet(A, p.length))) m += p[s]!;
  return m;
}

/**
 * The normalised content cont(A) = m(¬A) = 1 − m(A) under a probability p on the states: 0 for
 * a tautology, 1 for a contradiction (Carnap & Bar-Hillel 1952, §6, with a normalised measure).
 */
export function contentNormalised(p: readonly number[], A: StateSet | number): number {
  return 1 - stateMeasure(p, A);
}

/**
 * The content under the counting measure: the number of the n states that A excludes, |¬A|.
 * This is the measure of Carnap–Bar-Hillel's examples and of Belfiore–Bennequin's (3.63): in
 * their language L²₃ (2 predicates, 3 individuals, 2⁶ = 64 states) a simple proposition such as
 * "a is P" holds in 32 states and has content 32.
 */
export function contentCounting(n: number, A: StateSet | number): number {
  if (!(Number.isInteger(n) && n >= 1)) throw new ToposError(`the counting content needs an integer number of states ≥ 1, got ${n}`);
  return n - statesOf(toStateSet(A, n)).length;
}

/** Carnap–Bar-Hillel information inf(A) = −log₂ m(A) bits (Carnap & Bar-Hillel 1952, §7); ∞ for a contradiction. */
export function informationCBH(p: readonly number[], A: StateSet | number): number {
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
