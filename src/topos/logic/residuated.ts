import { unitChain } from './heyting.js';
import type { HeytingAlgebra } from './heyting.js';

/**
 * Łukasiewicz logic on [0,1]: a residuated lattice, not a Heyting algebra. The monoid is the
 * Łukasiewicz t-norm a ⊗ b = max(0, a + b − 1) and a ⇒ b = min(1, 1 − a + b) is its residuum:
 * a ⊗ x ≤ b ⇔ x ≤ (a ⇒ b) (Hájek, *Metamathematics of Fuzzy Logic*, §3.1). Since ⊗ ≠ ∧, the
 * Heyting adjunction with ∧ = min fails (a = 0.5, b = 0.2, x = 0.7: x ≤ a ⇒ b = 0.7 but
 * min(a, x) = 0.5 > b), and so does a ∧ ¬a = 0 with ¬a = 1 − a; a ⊗ ¬a = 0 holds.
 */
export const lukasiewicz: HeytingAlgebra<number> = unitChain({
  name: 'lukasiewicz',
  title: 'Łukasiewicz logic on [0,1] (residuated): a ⊗ b = max(0, a+b−1), a ⇒ b = min(1, 1−a+b)',
  kind: 'residuated',
  implies: (a, b) => Math.min(1, 1 - a + b),
  not: (a) => 1 - a,
  tensor: (a, b) => Math.max(0, a + b - 1),
});

/**
 * Product (Goguen) logic on [0,1]: residuated, not Heyting. a ⊗ b = ab and
 * a ⇒ b = 1 if a ≤ b else b / a is its residuum (Hájek §4.1). Negation ¬a = a ⇒ 0 is Gödel's
 * (1 at 0, else 0), so a ∧ ¬a = 0 holds, but the adjunction with ∧ = min fails.
 */
export const productLogic: HeytingAlgebra<number> = unitChain({
  name: 'product',
  title: 'product logic on [0,1] (residuated): a ⊗ b = ab, a ⇒ b = 1 if a ≤ b else b/a',
  kind: 'residuated',
  implies: (a, b) => (a <= b ? 1 : b / a),
  not: (a) => (a === 0 ? 1 : 0),
  tensor: (a, b) => a * b,
});
