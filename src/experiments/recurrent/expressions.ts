import { polynomial } from '../../nn/recurrent/polynomial.js';
import type { PolynomialFunctor, Tree } from '../../nn/recurrent/polynomial.js';
import type { Rng } from '../../random/rng.js';

/**
 * Propositional formulas over the constants 0 and 1 with ¬, ∧, ∨ and ⊕, as trees of the
 * polynomial functor P(X) = 2 + X + X² + X² + X² (a constant leaf labelled one-hot, ¬ with one
 * child, ∧ ∨ ⊕ with two), and written out in full infix with parentheses for a sequence model:
 * ((1&0)^!1). The task: the formula's truth value.
 */
export const FORMULAS: PolynomialFunctor = polynomial('propositional formulas', [
  { name: 'const', label: 2, arity: 0 },
  { name: 'not', label: 0, arity: 1 },
  { name: 'and', label: 0, arity: 2 },
  { name: 'or', label: 0, arity: 2 },
  { name: 'xor', label: 0, arity: 2 },
]);

const CONST = 0,
  NOT = 1;
const SYMBOL = ['', '!', '&', '|', '^'];

/** A formula: its tree, its truth value, its depth. */
export interface Formula {
  readonly tree: Tree;
  readonly value: number;
  readonly depth: number;
}

/**
 * A random formula of depth exactly d (a constant has depth 0): ¬ with probability 1/5, else a
 * binary connective chosen uniformly, one child of depth d − 1 and the other of a depth drawn
 * uniformly from 0 … d − 1 (on a random side); constants 0 and 1 equally likely.
 */
export function randomFormula(rng: Rng, d: number): Formula {
  if (d === 0) {
    const v = rng.int(2);
    return { tree: { c: CONST, label: v === 1 ? [0, 1] : [1, 0], children: [] }, value: v, depth: 0 };
  }
  if (rng.uniform() < 0.2) {
    const a = randomFormula(rng, d - 1);
    return { tree: { c: NOT, label: [], children: [a.tree] }, value: 1 - a.value, depth: d };
  }
  const op = 2 + rng.int(3);
  const deep = randomFormula(rng, d - 1),
    other = randomFormula(rng, rng.int(d));
  const [a, b] = rng.uniform() < 0.5 ? [deep, other] : [other, deep];
  const value = op === 2 ? a.value & b.value : op === 3 ? a.value | b.value : a.value ^ b.value;
  return { tree: { c: op, label: [], children: [a.tree, b.tree] }, value, depth: d };
}

/** The formula written out: 0, 1, !a, (a&b), (a|b), (a^b). */
export function formulaText(t: Tree): string {
  if (t.c === CONST) return t.label[1] === 1 ? '1' : '0';
  if (t.c === NOT) return `!${formulaText(t.children[0]!)}`;
  return `(${formulaText(t.children[0]!)}${SYMBOL[t.c]}${formulaText(t.children[1]!)})`;
}

/** The written formulas' characters; id 0 is the padding that fills a batch's shorter formulas in on the left. */
export const FORMULA_VOCABULARY = ['·', '0', '1', '!', '&', '|', '^', '(', ')'] as const;

/** The ids of a formula's text. */
export function formulaIds(text: string): number[] {
  return Array.from(text, (ch) => FORMULA_VOCABULARY.indexOf(ch as (typeof FORMULA_VOCABULARY)[number]));
}

/** n formulas, each of a depth drawn uniformly from `depths`. */
export function formulaSet(rng: Rng, n: number, depths: readonly number[]): Formula[] {
  return Array.from({ length: n }, () => randomFormula(rng, depths[rng.int(depths.length)]!));
}
