import { RangeArgError } from '../../errors.js';
import type { HeytingAlgebra } from './heyting.js';

/**
 * The Heyting algebra of open sets of a finite topological space — the truth values of the
 * topos of sheaves on it (Mac Lane & Moerdijk, §I.8: "the lattice of open sets is a Heyting
 * algebra"). Opens are bit masks over at most 30 points: ∧ = ∩, ∨ = ∪, and
 * U ⇒ V = the interior of (X ∖ U) ∪ V = the union of all opens W with W ∩ U ⊆ V; ¬U = U ⇒ ∅.
 * Not Boolean unless every open is also closed: in the Sierpiński space
 * ({0, 1}; opens ∅, {1}, {0,1}), ¬{1} = ∅ and {1} ∨ ¬{1} = {1} ≠ X.
 *
 * `opens` must contain ∅ and the whole space and be closed under ∩ and ∪ (checked); the
 * result lists them as masks in `opens` (the law checker's samples).
 */
export function openSetAlgebra(
  points: number,
  opens: readonly (readonly number[])[],
  name = 'opens',
): HeytingAlgebra<number> & { readonly opens: readonly number[] } {
  if (!(Number.isInteger(points) && points >= 1 && points <= 30)) throw new RangeArgError(`${name}: a finite space needs 1 to 30 points, got ${points}`);
  const mask = (U: readonly number[]): number =>
    U.reduce((m, p) => {
      if (!(Number.isInteger(p) && p >= 0 && p < points)) throw new RangeArgError(`${name}: point ${p} is not one of 0…${points - 1}`);
      return m | (1 << p);
    }, 0);
  const top = (1 << points) - 1;
  const O = [...new Set(opens.map(mask))].sort((a, b) => a - b);
  const isOpen = new Set(O);
  const show = (U: number): string =>
    `{${Array.from({ length: points }, (_, p) => p)
      .filter((p) => U & (1 << p))
      .join(',')}}`;
  if (!isOpen.has(0) || !isOpen.has(top)) throw new RangeArgError(`${name}: the opens must contain ∅ and the whole space ${show(top)}`);
  for (const U of O) {
    for (const V of O) {
      if (!isOpen.has(U & V) || !isOpen.has(U | V))
        throw new RangeArgError(`${name}: ${show(U)} and ${show(V)} are open but their ${isOpen.has(U & V) ? 'union' : 'intersection'} is not; not a topology`);
    }
  }
  const check = (U: number, where = 'truth value'): number => {
    if (!isOpen.has(U))
      throw new RangeArgError(`${name}: ${where} ${Number.isInteger(U) && U >= 0 && U <= top ? show(U) : U} is not an open set of this space`);
    return U;
  };
  const implies = (U: number, V: number): number => {
    check(U);
    check(V);
    let W = 0;
    for (const G of O) if ((G & U & ~V) === 0) W |= G;
    return W;
  };
  return {
    opens: O,
    name,
    title: `open sets of a ${points}-point space (${O.length} opens): a Heyting algebra`,
    kind: O.every((U) => isOpen.has(top & ~U)) ? 'boolean' : 'heyting',
    top,
    bottom: 0,
    meet: (U, V) => check(U) & check(V),
    join: (U, V) => check(U) | check(V),
    implies,
    not: (U) => implies(U, 0),
    tensor: (U, V) => check(U) & check(V),
    leq: (U, V) => (check(U) & ~check(V)) === 0,
    equals: (U, V) => check(U) === check(V),
    check,
    show,
  };
}
