import { describe, expect, it } from 'vitest';
import { FunctorError, checkSetDifunctor, checkVectDifunctor, setDifunctor, vectDifunctor } from '../../src/category/index.js';
import fc from 'fast-check';
import { groupCategory, homFunctor, homRepFunctor, linearize } from '../../src/ends/index.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { eye, fromRows, mat } from '../../src/linalg/matrix.js';
import { parsePoset } from '../../src/category/finite.js';
import { posetFrom } from '../ends/helpers.js';

describe('functors C^op × C → Set', () => {
  it('Hom is functorial on random posets and on groups (and its linearisation too)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.tuple(fc.nat(5), fc.nat(5)), { maxLength: 8 }), (n, rel) => {
        const C = posetFrom(
          n,
          rel.map(([a, b]) => [a % n, b % n] as [number, number]),
        );
        const H = homFunctor(C);
        checkSetDifunctor(H);
        checkVectDifunctor(linearize(H));
      }),
      { numRuns: 40 },
    );
    for (const g of ['S(3)', 'D(4)', 'Z(6)']) checkSetDifunctor(homFunctor(groupCategory(parseGroup(g)).category));
  });

  it('a table that does not compose is rejected, naming the arrows', () => {
    const C = parsePoset('a<b<c');
    const H = homFunctor(C);
    // a "functor" whose covariant action on b≤c is broken: it swaps the two elements of F(a, c)? F(a,c) has one element; use a constant 2-element functor instead
    const two = (f: number) => (C.isIdentity(f) ? [0, 1] : [1, 0]);
    expect(() => setDifunctor({ name: 'Swap', category: C, size: () => 2, left: () => [0, 1], right: (_a, g) => two(g) })).toThrow(
      /Swap is not functorial in its second slot at b≤c∘a≤b/,
    );
    expect(() => setDifunctor({ name: 'Swap', category: C, size: () => 2, left: (f) => two(f), right: () => [0, 1] })).toThrow(FunctorError);
    expect(H.size(C.object('a'), C.object('c'))).toBe(1);
  });

  it('an identity that moves an element, a table of the wrong length and an element outside the codomain are named', () => {
    const C = parsePoset('a<b');
    expect(() => setDifunctor({ name: 'F', category: C, size: () => 2, left: () => [1, 0], right: () => [0, 1] })).toThrow(/F\(id_a, a\) moves element 0/);
    expect(() => setDifunctor({ name: 'F', category: C, size: () => 2, left: () => [0, 1], right: () => [0] })).toThrow(
      /F\(a, id_a: a → a\) must map 2 elements but its table has 1/,
    );
    expect(() => setDifunctor({ name: 'F', category: C, size: () => 2, left: () => [0, 1], right: () => [0, 5] })).toThrow(
      /sends element 1 to 5, outside its codomain of 2 elements/,
    );
  });

  it('actions that do not commute are caught (not a bifunctor)', () => {
    // one-object category Z/2 = {e, s}; F(★,★) = {0,1,2}; left(s) and right(s) two non-commuting involutions
    const G = groupCategory(parseGroup('Z(2)'));
    const s = G.category.arrows.findIndex((a) => a.name !== 'e');
    const inv = (f: number, p: number[]) => (f === s ? p : [0, 1, 2]);
    expect(() => setDifunctor({ name: 'N', category: G.category, size: () => 3, left: (f) => inv(f, [1, 0, 2]), right: (_a, g) => inv(g, [0, 2, 1]) })).toThrow(
      /N is not a bifunctor: its two actions do not commute at f = \(0 1\)/,
    );
  });
});

describe('functors C^op × C → Vect', () => {
  const Z2 = groupCategory(parseGroup('Z(2)'));
  const s = Z2.category.arrows.findIndex((a) => a.name !== 'e');
  const flip = fromRows([
    [0, 1],
    [1, 0],
  ]);

  it('a matrix of the wrong size names the arrow and both sizes', () => {
    expect(() => vectDifunctor({ name: 'F', category: Z2.category, dim: () => 2, left: (f) => (f === s ? mat(2, 3) : eye(2)), right: () => eye(2) })).toThrow(
      /F\(\(0 1\): ★ → ★, ★\).* must be a 2×2 matrix but is 2×3/,
    );
  });

  it('a representation that is not a homomorphism is not functorial', () => {
    const bad = {
      name: 'bad',
      matrices: [
        eye(2),
        fromRows([
          [2, 0],
          [0, 1],
        ]),
      ],
    };
    const good = { name: 'flip', matrices: [eye(2), flip] };
    expect(() => homRepFunctor(Z2, bad, good)).toThrow(/Hom\(bad, flip\) is not functorial in its first \(contravariant\) slot at \(0 1\)∘\(0 1\)/);
    expect(() => homRepFunctor(Z2, good, good)).not.toThrow();
    expect(() => homRepFunctor(Z2, { name: 'short', matrices: [eye(2)] }, good)).toThrow(/short gives 1 matrices but Z\(2\) has 2 elements/);
    expect(() => homRepFunctor(Z2, { name: 'ragged', matrices: [eye(2), eye(3)] }, good)).toThrow(/the matrix of \(0 1\) is 3×3, expected 2×2/);
  });

  it('an identity arrow acting non-trivially is rejected', () => {
    expect(() => vectDifunctor({ name: 'F', category: Z2.category, dim: () => 2, left: (f) => (f === s ? eye(2) : flip), right: () => eye(2) })).toThrow(
      /F\(id_★, ★\) is not the identity matrix/,
    );
  });
});
