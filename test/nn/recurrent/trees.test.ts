import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gradcheck, makeCtx, parseSpec, primitive, Rng, Tensor } from '../../../src/index.js';
import type { Para } from '../../../src/index.js';
import { binaryTrees, CELLS, cellMorphism, foldTrees, initAlgebra, listAlgebra, listTree, treeAlgebra } from '../../../src/nn/recurrent/index.js';
import type { Tree, TreeAlgebra } from '../../../src/nn/recurrent/index.js';
import { FORMULAS, formulaText, randomFormula } from '../../../src/experiments/recurrent/expressions.js';
import { morphismArb } from '../../laws/arbitrary.js';

/**
 * Folds over a polynomial functor: the batched fold satisfies the catamorphism's equation
 * fold(c(l, t₁ … tₙ)) = alg_c(l, fold t₁ … fold tₙ) on random trees and random algebras; a cell's
 * list algebra folded over a list is the cell's fold; the fold's lens passes the gradient check
 * in θ and in the labels; the formula generator makes what it says.
 */

/** A random binary tree of leaves labelled in ℝ^A, up to the given depth. */
const treeArb = (A: number, depth: number): fc.Arbitrary<Tree> =>
  fc
    .letrec<{ t: Tree }>((tie) => ({
      t: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.array(fc.double({ min: -2, max: 2, noNaN: true }), { minLength: A, maxLength: A }).map((label): Tree => ({ c: 0, label, children: [] })),
        fc.tuple(tie('t'), tie('t')).map(([a, b]): Tree => ({ c: 1, label: [], children: [a, b] })),
      ),
    }))
    .t.filter((t) => depthOf(t) <= depth);

const depthOf = (t: Tree): number => t.children.reduce((d, c) => Math.max(d, 1 + depthOf(c)), 0);

/** The fold by plain recursion, one node at a time (the definition). */
function naiveFold(alg: TreeAlgebra, theta: readonly Tensor[], t: Tree): number[] {
  const c = alg.functor.constructors[t.c]!;
  const kids = t.children.map((k) => naiveFold(alg, theta, k));
  const x = Tensor.of([...Array.from(t.label), ...kids.flat()], [1, c.label + c.arity * alg.state], 'float64');
  let at = 0;
  for (let i = 0; i < t.c; i++) at += alg.morphisms[i]!.params.length;
  return Array.from(alg.morphisms[t.c]!.run(theta.slice(at, at + alg.morphisms[t.c]!.params.length), x).data);
}

describe('folds over polynomial functors', () => {
  it('the batched fold is the catamorphism: fold(node(t₁, t₂)) = alg_node(fold t₁, fold t₂) on random trees and algebras', () => {
    fc.assert(
      fc.property(
        fc.tuple(morphismArb(2, 3, 1), morphismArb(6, 3, 1), fc.array(treeArb(2, 4), { minLength: 1, maxLength: 4 }), fc.integer({ min: 0, max: 1e6 })),
        ([leaf, node, trees, seed]) => {
          const alg = treeAlgebra(binaryTrees(2), 3, [leaf, node]);
          const theta = initAlgebra(alg, seed, 'float64');
          const y = foldTrees(alg, theta, trees, makeCtx(), 'float64').y;
          trees.forEach((t, i) => {
            const want = naiveFold(alg, theta, t);
            want.forEach((v, j) => expect(Math.abs(y.data[i * 3 + j]! - v)).toBeLessThan(1e-12));
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("a cell's list algebra (nil ↦ 0, cons ↦ the cell's next state) folded over a list is the cell's fold", () => {
    const rng = new Rng(3);
    for (const kind of ['lstm', 'gru', 'rnn', 'mgu'] as const) {
      const cell = CELLS[kind](2, 3);
      const theta = cell.params.map((p) =>
        Tensor.of(
          Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal() * 0.7),
          p.shape,
          'float64',
        ),
      );
      const T = 5;
      const xs = Array.from({ length: T }, () => [rng.normal(), rng.normal()]);
      const alg = listAlgebra(cellMorphism(cell), cell.state);
      const folded = foldTrees(alg, theta, [listTree(xs)], makeCtx(), 'float64').y;
      const run = cell.run(theta, Tensor.of(xs.flat(), [1, T, 2], 'float64'), undefined, makeCtx()).s;
      Array.from(run.data).forEach((v, j) => expect(Math.abs(folded.data[j]! - v), `${kind}[${j}]`).toBeLessThan(1e-12));
    }
  });

  it("the fold's lens passes the float64 gradient check in θ and in the leaves' labels", () => {
    const rng = new Rng(5);
    const shapes = Array.from({ length: 3 }, (_, i) => randomFormula(rng, 2 + i).tree);
    const labels = shapes.flatMap(function collect(t: Tree): number[] {
      return [...Array.from(t.label), ...t.children.flatMap(collect)];
    });
    const S = 4;
    const connective = (n: number): string => `dense(${n * S},${S}) >> tanh >> dense(${S},${S}) >> tanh`;
    const alg = treeAlgebra(
      FORMULAS,
      S,
      [`dense(2,${S}) >> tanh`, connective(1), connective(2), connective(2), connective(2)].map((s) => parseSpec(s)),
    );
    // the forest with its labels read from x [1, L]: a morphism gradcheck can take
    const withLabels = (x: ArrayLike<number>): Tree[] => {
      let k = 0;
      const relabel = (t: Tree): Tree => ({ c: t.c, label: Array.from(t.label, () => x[k++]!), children: t.children.map(relabel) });
      return shapes.map(relabel);
    };
    const f = primitive({
      kind: 'fold',
      dom: [labels.length],
      cod: [shapes.length * S],
      params: alg.params,
      forward: (theta, x, ctx) => {
        const lens = foldTrees(alg, theta, withLabels(x.data), ctx, 'float64');
        return {
          y: lens.y.reshape([1, shapes.length * S]),
          pullback: (dy, dTheta) => Tensor.of(lens.pullback(dy.reshape([shapes.length, S]), dTheta).flat(), x.shape, 'float64'),
        };
      },
    });
    const r = gradcheck(f, { x: Tensor.of(labels, [1, labels.length], 'float64'), seed: 2 });
    expect(r.relError, `${r.analytic} vs ${r.numeric}`).toBeLessThan(1e-6);
  });

  it('refuses a tree that does not fit the functor, naming the constructor', () => {
    const alg = treeAlgebra(binaryTrees(1), 2, [parseSpec('dense(1,2)'), parseSpec('dense(4,2)')]);
    expect(() => foldTrees(alg, initAlgebra(alg), [{ c: 1, label: [], children: [{ c: 0, label: [1], children: [] }] }], makeCtx())).toThrow(
      /a node node needs 2 children and a label of 0, got 1 and 0/,
    );
    expect(() => treeAlgebra(binaryTrees(1), 2, [parseSpec('dense(1,2)'), parseSpec('dense(3,2)')])).toThrow(/morphism for node must map \[4\]/);
  });

  it('the formula generator makes formulas of exactly the depth asked, with their truth values, written out with balanced parentheses', () => {
    const rng = new Rng(1);
    const evalText = (s: string): number => {
      let i = 0;
      const parse = (): number => {
        const ch = s[i++]!;
        if (ch === '0' || ch === '1') return Number(ch);
        if (ch === '!') return 1 - parse();
        const a = parse(),
          op = s[i++]!,
          b = parse();
        i++; // ')'
        return op === '&' ? a & b : op === '|' ? a | b : a ^ b;
      };
      return parse();
    };
    for (let d = 0; d <= 7; d++) {
      for (let k = 0; k < 20; k++) {
        const f = randomFormula(rng, d);
        expect(depthOf(f.tree)).toBe(d);
        expect(evalText(formulaText(f.tree))).toBe(f.value);
      }
    }
  });
});
