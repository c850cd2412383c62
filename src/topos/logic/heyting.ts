import { RangeArgError } from '../../errors.js';

/**
 * The signature of a logic of truth values: a bounded lattice (⊤, ⊥, ∧, ∨, ≤) with an
 * implication ⇒ and a negation ¬. It is the signature of a Heyting algebra — the internal
 * logic of the subobject classifier Ω of a topos (Mac Lane & Moerdijk, *Sheaves in Geometry
 * and Logic*, §I.8 and §IV.8) — but an instance is a Heyting algebra only when it satisfies the
 * laws `checkLaws` tests, above all the adjunction
 *
 *     a ∧ x ≤ b  ⇔  x ≤ (a ⇒ b)          (⇒ is right adjoint to a ∧ −)
 *
 * Residuated logics (Łukasiewicz, product) keep the same signature but make ⇒ adjoint to a
 * monoid ⊗ (a t-norm) instead of to ∧; `tensor` is that ⊗ (for a Heyting algebra, ⊗ = ∧).
 *
 * `T` is the carrier: numbers for the logics on [0,1] and {0,1}, anything with an equality
 * for finite Heyting algebras (sieves, open sets).
 */
export interface HeytingAlgebra<T> {
  /** Name used by the CLI (`godel`, `boolean`, …). */
  readonly name: string;
  /** One line for people. */
  readonly title: string;
  /**
   * What the structure is: `heyting` (a Heyting algebra; `boolean` when also a Boolean
   * algebra), `residuated` (⇒ adjoint to ⊗, not to ∧), or `none` (no adjunction at all).
   */
  readonly kind: 'boolean' | 'heyting' | 'residuated' | 'none';
  readonly top: T;
  readonly bottom: T;
  meet(a: T, b: T): T;
  join(a: T, b: T): T;
  implies(a: T, b: T): T;
  not(a: T): T;
  leq(a: T, b: T): boolean;
  equals(a: T, b: T): boolean;
  /** The monoid ⊗ that ⇒ is residuated against (∧ for a Heyting algebra). */
  tensor(a: T, b: T): T;
  /** Throws a RangeArgError naming `a` unless it is a truth value of this algebra. */
  check(a: T, where?: string): T;
  /** How a truth value prints. */
  show(a: T): string;
}

/** Comparisons on [0,1] forgive this much rounding (Łukasiewicz's a + b − 1 is not exact in floating point). */
export const TRUTH_EPS = 1e-9;

/** Throws a RangeArgError unless `a` is a number in [0, 1]. */
export function checkUnit(algebra: string, a: number, where = 'truth value'): number {
  if (typeof a !== 'number' || !(a >= 0 && a <= 1)) {
    throw new RangeArgError(`${algebra}: ${where} ${a} is outside [0, 1]; truth values of this logic are numbers in [0, 1]`);
  }
  return a;
}

/**
 * What every logic on the chain [0,1] shares: ∧ = min, ∨ = max and ≤; `implies`, `not`,
 * `tensor` are the instance's own. `slack` forgives rounding in ≤ and = (TRUTH_EPS for logics
 * whose operations do arithmetic; 0 for Gödel, whose operations only select, so that its laws
 * hold exactly — any slack would break the adjunction at the scale of the slack).
 */
export function unitChain(spec: {
  slack?: number;
  name: string;
  title: string;
  kind: HeytingAlgebra<number>['kind'];
  implies(a: number, b: number): number;
  not(a: number): number;
  tensor(a: number, b: number): number;
}): HeytingAlgebra<number> {
  const c = (a: number, w?: string): number => checkUnit(spec.name, a, w);
  const slack = spec.slack ?? TRUTH_EPS;
  return {
    name: spec.name,
    title: spec.title,
    kind: spec.kind,
    top: 1,
    bottom: 0,
    meet: (a, b) => Math.min(c(a), c(b)),
    join: (a, b) => Math.max(c(a), c(b)),
    implies: (a, b) => spec.implies(c(a), c(b)),
    not: (a) => spec.not(c(a)),
    tensor: (a, b) => spec.tensor(c(a), c(b)),
    leq: (a, b) => c(a) <= c(b) + slack,
    equals: (a, b) => Math.abs(c(a) - c(b)) <= slack,
    check: c,
    show: (a) => String(Number(a.toPrecision(6))),
  };
}

/**
 * The Gödel algebra: the chain [0,1] as a Heyting algebra. ∧ = min, ∨ = max and
 * a ⇒ b = 1 if a ≤ b, else b — the largest x with min(a, x) ≤ b, i.e. the right adjoint of
 * min(a, −). Negation ¬a = a ⇒ 0 is 1 at 0 and 0 elsewhere. Intuitionistic: a ∨ ¬a = 1 and
 * ¬¬a = a fail for 0 < a < 1.
 */
export const godel: HeytingAlgebra<number> = unitChain({
  name: 'godel',
  title: 'Gödel algebra on [0,1] (the Heyting algebra of the chain): a ⇒ b = 1 if a ≤ b else b',
  kind: 'heyting',
  slack: 0,
  implies: (a, b) => (a <= b ? 1 : b),
  not: (a) => (a === 0 ? 1 : 0),
  tensor: (a, b) => Math.min(a, b),
});

/** The two-element Boolean algebra {0, 1}: classical logic, the Ω of Set. a ⇒ b = ¬a ∨ b. */
export const booleanAlgebra: HeytingAlgebra<number> = (() => {
  const base = unitChain({
    name: 'boolean',
    title: 'Boolean algebra {0, 1} (Ω of Set): a ⇒ b = ¬a ∨ b',
    kind: 'boolean',
    implies: (a, b) => Math.max(1 - a, b),
    not: (a) => 1 - a,
    tensor: (a, b) => Math.min(a, b),
  });
  const check = (a: number, where = 'truth value'): number => {
    if (a !== 0 && a !== 1) throw new RangeArgError(`boolean: ${where} ${a} is not 0 or 1; the Boolean algebra has exactly the truth values 0 and 1`);
    return a;
  };
  return {
    ...base,
    check,
    meet: (a, b) => Math.min(check(a), check(b)),
    join: (a, b) => Math.max(check(a), check(b)),
    implies: (a, b) => Math.max(1 - check(a), check(b)),
    not: (a) => 1 - check(a),
    tensor: (a, b) => Math.min(check(a), check(b)),
    leq: (a, b) => check(a) <= check(b),
    equals: (a, b) => check(a) === check(b),
  };
})();
