import { unitChain } from './heyting.js';
import type { HeytingAlgebra } from './heyting.js';

/**
 * The Kleene–Dienes operators on [0,1]: ∧ = min, ∨ = max, ¬a = 1 − a and the material
 * implication a ⇒ b = max(1 − a, b) = ¬a ∨ b. This is the operator seed 000 calls "the
 * intuitionistic implication p ⇒ q = ¬p ∨ q"; it is **not** the Heyting implication of [0,1]
 * (that is Gödel's, see `godel`). On {0,1} it agrees with classical logic; on (0,1) it breaks:
 *
 * - identity: a ⇒ a = max(1 − a, a) ≠ 1 (a = 0.5 gives 0.5);
 * - the adjunction a ∧ x ≤ b ⇔ x ≤ (a ⇒ b): a = 0.5, b = 0.2, x = 0.5 has x ≤ a ⇒ b = 0.5
 *   but a ∧ x = 0.5 > b. It is not the residuum of any t-norm either: a residuum has
 *   a ⇒ b = 1 whenever a ≤ b, and here a ⇒ a < 1;
 * - non-contradiction: a ∧ ¬a = min(a, 1 − a) ≠ 0;
 * - modus ponens a ∧ (a ⇒ b) ≤ b (a = 0.5, b = 0);
 * - excluded middle a ∨ ¬a = 1 (as in every non-Boolean logic here).
 *
 * The lattice laws and distributivity hold (it is a De Morgan / Kleene algebra), and ¬¬a = a.
 * `checkLaws(kleeneDienes, …)` reports all of this with counterexamples.
 */
export const kleeneDienes: HeytingAlgebra<number> = unitChain({
  name: 'kleene-dienes',
  title: "Kleene–Dienes operators on [0,1] (seed 000's p ⇒ q = max(1−p, q)): not a Heyting algebra",
  kind: 'none',
  implies: (a, b) => Math.max(1 - a, b),
  not: (a) => 1 - a,
  tensor: (a, b) => Math.min(a, b),
});
