import { RangeArgError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import type { HeytingAlgebra } from './heyting.js';

/**
 * Which structure a law belongs to: `lattice` (bounded distributive lattice), `heyting`
 * (what ⇒ and ¬ must satisfy in a Heyting algebra), `residuated` (⇒ adjoint to ⊗),
 * `boolean` (classical laws that a Heyting algebra need not satisfy).
 */
export type LawLevel = 'lattice' | 'heyting' | 'residuated' | 'boolean';

/** A law of a logic on truth values, tested on all tuples of samples. */
export interface Law {
  readonly name: string;
  readonly statement: string;
  readonly level: LawLevel;
  readonly vars: readonly string[];
  /** null when the law holds at `v`, else what went wrong there (both sides evaluated). */
  test<T>(A: HeytingAlgebra<T>, v: readonly T[]): string | null;
}

/** The outcome of one law on the samples. */
export interface LawResult {
  readonly name: string;
  readonly statement: string;
  readonly level: LawLevel;
  readonly holds: boolean;
  /** Number of tuples tested. */
  readonly checked: number;
  /** The first tuple where the law fails: variable → value, and what went wrong. */
  readonly counterexample?: { readonly values: Record<string, string>; readonly detail: string };
}

export interface LawReport {
  readonly algebra: string;
  readonly title: string;
  readonly kind: HeytingAlgebra<unknown>['kind'];
  readonly samples: number;
  readonly results: readonly LawResult[];
  /** All lattice and Heyting laws hold on the samples. */
  readonly heyting: boolean;
  /** All lattice laws and residuation (⊗ ⊣ ⇒) hold on the samples. */
  readonly residuated: boolean;
  /** Heyting and the Boolean laws hold. */
  readonly boolean: boolean;
  readonly failed: readonly string[];
}

const eq = <T>(A: HeytingAlgebra<T>, what: string, l: T, r: T): string | null =>
  A.equals(l, r) ? null : `${what}: left side ${A.show(l)}, right side ${A.show(r)}`;

const law = (name: string, statement: string, level: LawLevel, vars: string, test: Law['test']): Law => ({
  name,
  statement,
  level,
  vars: vars.split(''),
  test,
});

/** The laws checked, in order: lattice, Heyting, residuated, Boolean. */
export const LAWS: readonly Law[] = [
  law('meet-commutative', 'a ∧ b = b ∧ a', 'lattice', 'ab', (A, [a, b]) => eq(A, 'a ∧ b vs b ∧ a', A.meet(a!, b!), A.meet(b!, a!))),
  law('join-commutative', 'a ∨ b = b ∨ a', 'lattice', 'ab', (A, [a, b]) => eq(A, 'a ∨ b vs b ∨ a', A.join(a!, b!), A.join(b!, a!))),
  law('meet-associative', 'a ∧ (b ∧ c) = (a ∧ b) ∧ c', 'lattice', 'abc', (A, [a, b, c]) =>
    eq(A, 'a ∧ (b ∧ c) vs (a ∧ b) ∧ c', A.meet(a!, A.meet(b!, c!)), A.meet(A.meet(a!, b!), c!)),
  ),
  law('join-associative', 'a ∨ (b ∨ c) = (a ∨ b) ∨ c', 'lattice', 'abc', (A, [a, b, c]) =>
    eq(A, 'a ∨ (b ∨ c) vs (a ∨ b) ∨ c', A.join(a!, A.join(b!, c!)), A.join(A.join(a!, b!), c!)),
  ),
  law(
    'absorption',
    'a ∧ (a ∨ b) = a = a ∨ (a ∧ b)',
    'lattice',
    'ab',
    (A, [a, b]) => eq(A, 'a ∧ (a ∨ b) vs a', A.meet(a!, A.join(a!, b!)), a!) ?? eq(A, 'a ∨ (a ∧ b) vs a', A.join(a!, A.meet(a!, b!)), a!),
  ),
  law(
    'bounds',
    'a ∧ ⊤ = a, a ∨ ⊥ = a',
    'lattice',
    'a',
    (A, [a]) => eq(A, 'a ∧ ⊤ vs a', A.meet(a!, A.top), a!) ?? eq(A, 'a ∨ ⊥ vs a', A.join(a!, A.bottom), a!),
  ),
  law('order', 'a ≤ b ⇔ a ∧ b = a', 'lattice', 'ab', (A, [a, b]) =>
    A.leq(a!, b!) === A.equals(A.meet(a!, b!), a!) ? null : `a ≤ b is ${A.leq(a!, b!)} but a ∧ b = ${A.show(A.meet(a!, b!))}`,
  ),
  law('distributive', 'a ∧ (b ∨ c) = (a ∧ b) ∨ (a ∧ c)', 'lattice', 'abc', (A, [a, b, c]) =>
    eq(A, 'a ∧ (b ∨ c) vs (a ∧ b) ∨ (a ∧ c)', A.meet(a!, A.join(b!, c!)), A.join(A.meet(a!, b!), A.meet(a!, c!))),
  ),
  law('adjunction', 'a ∧ x ≤ b ⇔ x ≤ (a ⇒ b)', 'heyting', 'abx', (A, [a, b, x]) => {
    const l = A.leq(A.meet(a!, x!), b!),
      r = A.leq(x!, A.implies(a!, b!));
    return l === r ? null : `a ∧ x = ${A.show(A.meet(a!, x!))} ${l ? '≤' : '>'} b but x ${r ? '≤' : '>'} (a ⇒ b) = ${A.show(A.implies(a!, b!))}`;
  }),
  law('identity', 'a ⇒ a = ⊤', 'heyting', 'a', (A, [a]) => eq(A, 'a ⇒ a vs ⊤', A.implies(a!, a!), A.top)),
  law('modus-ponens', 'a ∧ (a ⇒ b) ≤ b', 'heyting', 'ab', (A, [a, b]) => {
    const l = A.meet(a!, A.implies(a!, b!));
    return A.leq(l, b!) ? null : `a ∧ (a ⇒ b) = ${A.show(l)} > b`;
  }),
  law('negation', '¬a = a ⇒ ⊥', 'heyting', 'a', (A, [a]) => eq(A, '¬a vs a ⇒ ⊥', A.not(a!), A.implies(a!, A.bottom))),
  law('non-contradiction', 'a ∧ ¬a = ⊥', 'heyting', 'a', (A, [a]) => eq(A, 'a ∧ ¬a vs ⊥', A.meet(a!, A.not(a!)), A.bottom)),
  law('residuation', 'a ⊗ x ≤ b ⇔ x ≤ (a ⇒ b)', 'residuated', 'abx', (A, [a, b, x]) => {
    const l = A.leq(A.tensor(a!, x!), b!),
      r = A.leq(x!, A.implies(a!, b!));
    return l === r ? null : `a ⊗ x = ${A.show(A.tensor(a!, x!))} ${l ? '≤' : '>'} b but x ${r ? '≤' : '>'} (a ⇒ b) = ${A.show(A.implies(a!, b!))}`;
  }),
  law('excluded-middle', 'a ∨ ¬a = ⊤', 'boolean', 'a', (A, [a]) => eq(A, 'a ∨ ¬a vs ⊤', A.join(a!, A.not(a!)), A.top)),
  law('double-negation', '¬¬a = a', 'boolean', 'a', (A, [a]) => eq(A, '¬¬a vs a', A.not(A.not(a!)), a!)),
];

/** Every tuple of `k` samples (with repetition), lexicographic. */
function* tuples<T>(samples: readonly T[], k: number): Generator<T[]> {
  const idx = new Array<number>(k).fill(0);
  const n = samples.length;
  if (n === 0) return;
  for (;;) {
    yield idx.map((i) => samples[i]!);
    let p = k - 1;
    while (p >= 0 && ++idx[p]! === n) idx[p--] = 0;
    if (p < 0) return;
  }
}

/**
 * Tests every law in `LAWS` on all tuples of `samples` and reports, per law, whether it holds
 * and the first counterexample. Sampling can only refute a law, never prove it: "holds" means
 * "no counterexample among these samples". Samples are checked to be truth values first.
 */
export function checkLaws<T>(A: HeytingAlgebra<T>, samples: readonly T[], laws: readonly Law[] = LAWS): LawReport {
  if (samples.length === 0) throw new RangeArgError(`${A.name}: the law checker needs at least one sample truth value`);
  samples.forEach((s, i) => A.check(s, `sample ${i + 1}`));
  const results: LawResult[] = laws.map((L) => {
    let checked = 0;
    for (const v of tuples(samples, L.vars.length)) {
      checked++;
      const detail = L.test(A, v);
      if (detail !== null) {
        const values = Object.fromEntries(L.vars.map((name, i) => [name, A.show(v[i]!)]));
        return { name: L.name, statement: L.statement, level: L.level, holds: false, checked, counterexample: { values, detail } };
      }
    }
    return { name: L.name, statement: L.statement, level: L.level, holds: true, checked };
  });
  const ok = (levels: LawLevel[]): boolean => results.every((r) => !levels.includes(r.level) || r.holds);
  return {
    algebra: A.name,
    title: A.title,
    kind: A.kind,
    samples: samples.length,
    results,
    heyting: ok(['lattice', 'heyting']),
    residuated: ok(['lattice', 'residuated']),
    boolean: ok(['lattice', 'heyting', 'boolean']),
    failed: results.filter((r) => !r.holds).map((r) => r.name),
  };
}

/**
 * Sample truth values in [0,1]: the grid 0, 0.1, …, 1 (which contains the usual
 * counterexamples) and `random` seeded uniform draws.
 */
export function unitSamples(random = 5, seed = 0): number[] {
  const rng = new Rng(seed);
  const grid = Array.from({ length: 11 }, (_, i) => i / 10);
  return [...grid, ...Array.from({ length: random }, () => rng.uniform())];
}
