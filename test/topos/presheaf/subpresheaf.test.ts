import { describe, expect, it } from 'vitest';
import { parsePoset, ToposError } from '../../../src/category/index.js';
import fc from 'fast-check';
import {
  allSubpresheaves,
  bottomSubpresheaf,
  characteristicMap,
  classifiedSubpresheaf,
  existsAlong,
  forallAlong,
  presheaf,
  presheafMorphism,
  productPresheaf,
  pullbackAlong,
  subobjectClassifier,
  subpresheaf,
  topSubpresheaf,
} from '../../../src/topos/index.js';
import type { Presheaf, PresheafMorphism, Subpresheaf } from '../../../src/topos/index.js';
import { arbPosetPresheaf } from '../random.js';

const joinAll = (P: Presheaf, xs: Subpresheaf[]): Subpresheaf => xs.reduce((a, b) => a.join(b), bottomSubpresheaf(P));
const meetAll = (P: Presheaf, xs: Subpresheaf[]): Subpresheaf => xs.reduce((a, b) => a.meet(b), topSubpresheaf(P));

/** Random presheaf with three random subpresheaves. */
const arbTriple = arbPosetPresheaf(3).chain((P) => {
  const subs = allSubpresheaves(P);
  const pick = fc.integer({ min: 0, max: subs.length - 1 }).map((i) => subs[i]!);
  return fc.tuple(fc.constant(P), fc.constant(subs), pick, pick, pick);
});

describe('subpresheaves: the bi-Heyting algebra Sub(P)', () => {
  it('Heyting adjunction C ≤ (A ⇒ B) ⇔ C ∧ A ≤ B, and A ⇒ B is the largest such C (brute force)', () => {
    fc.assert(
      fc.property(arbTriple, ([P, subs, A, B, C]) => {
        const imp = A.implies(B);
        expect(C.leq(imp)).toBe(C.meet(A).leq(B));
        expect(
          imp.equals(
            joinAll(
              P,
              subs.filter((X) => X.meet(A).leq(B)),
            ),
          ),
        ).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('co-Heyting adjunction A ∖ B ≤ C ⇔ A ≤ B ∨ C, and A ∖ B is the smallest such C', () => {
    fc.assert(
      fc.property(arbTriple, ([P, subs, A, B, C]) => {
        const diff = A.difference(B);
        expect(diff.leq(C)).toBe(A.leq(B.join(C)));
        expect(
          diff.equals(
            meetAll(
              P,
              subs.filter((X) => A.leq(B.join(X))),
            ),
          ),
        ).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('lattice and negation laws: distributivity, A ∧ ¬A = ⊥, A ≤ ¬¬A, A ∨ ∼A = ⊤, ∼∼A ≤ A', () => {
    fc.assert(
      fc.property(arbTriple, ([P, , A, B, C]) => {
        expect(A.meet(B.join(C)).equals(A.meet(B).join(A.meet(C)))).toBe(true);
        expect(A.join(B.meet(C)).equals(A.join(B).meet(A.join(C)))).toBe(true);
        expect(A.meet(A.negate()).equals(bottomSubpresheaf(P))).toBe(true);
        expect(A.leq(A.negate().negate())).toBe(true);
        expect(A.join(A.non()).equals(topSubpresheaf(P))).toBe(true);
        expect(A.non().non().leq(A)).toBe(true);
        // the boundary ∂A = A ∧ ∼A (Lawvere) is where the co-Heyting logic is not Boolean
        expect(A.meet(A.non()).leq(A)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('χ_A: P ⇒ Ω is natural and classifies A back exactly (round trip), and every φ: P ⇒ Ω comes from its subpresheaf', () => {
    fc.assert(
      fc.property(arbTriple, ([P, subs]) => {
        const O = subobjectClassifier(P.category);
        const chis = new Set<string>();
        for (const A of subs) {
          const chi = characteristicMap(A, O);
          presheafMorphism(P, O.omega, chi.components);
          expect(classifiedSubpresheaf(chi, O).equals(A)).toBe(true);
          chis.add(JSON.stringify(chi.components));
        }
        expect(chis.size).toBe(subs.length);
      }),
      { numRuns: 40 },
    );
  });

  it('Sierpiński: the subpresheaf A = {u at 1 restricted} has a non-Boolean complement', () => {
    // P = representable at 1 on 0 < 1: P(0) = {0≤1}, P(1) = {id_1}; A = the sieve {0≤1} = ⟨m⟩
    const C = parsePoset('0<1');
    const P = presheaf(
      C,
      [['0≤1'], ['id_1']],
      C.arrows.map(() => [0]),
    );
    const A = subpresheaf(P, [[0], []]);
    expect(A.negate().equals(bottomSubpresheaf(P))).toBe(true);
    expect(A.negate().negate().equals(topSubpresheaf(P))).toBe(true);
    expect(A.non().equals(topSubpresheaf(P))).toBe(true); // ∼A = P: the co-Heyting side is not Boolean either
    expect(() => subpresheaf(P, [[], [0]])).toThrow(/not a subpresheaf: id_1 ∈ A\(1\) but its restriction along 0≤1: 0 → 1 is not in A\(0\)/);
    expect(() => subpresheaf(P, [[3], []])).toThrow(ToposError);
  });
});

describe('quantifiers along α: X ⇒ Y: ∃_α ⊣ α* ⊣ ∀_α', () => {
  // α = first projection Y × K → Y with K the constant presheaf {0, 1}
  const arbMorphism = arbPosetPresheaf(3)
    .filter((Y) => Y.elements.flat().length <= 4)
    .map((Y): PresheafMorphism => {
      const K = presheaf(
        Y.category,
        Y.category.objects.map(() => ['0', '1']),
        Y.category.arrows.map(() => [0, 1]),
      );
      return productPresheaf(Y, K).first;
    });

  const check = (alpha: PresheafMorphism): void => {
    const subX = allSubpresheaves(alpha.source);
    const subY = allSubpresheaves(alpha.target);
    for (const A of subX) {
      const ex = existsAlong(alpha, A);
      const fa = forallAlong(alpha, A);
      for (const B of subY) {
        const pb = pullbackAlong(alpha, B);
        expect(ex.leq(B)).toBe(A.leq(pb));
        expect(pb.leq(A)).toBe(B.leq(fa));
      }
      // both images are subpresheaves (closed under restriction)
      subpresheaf(
        alpha.target,
        alpha.target.elements.map((_, c) => ex.at(c)),
      );
      subpresheaf(
        alpha.target,
        alpha.target.elements.map((_, c) => fa.at(c)),
      );
    }
  };

  it('along projections Y × K → Y (random presheaves Y, K constant {0,1})', () => {
    fc.assert(
      fc.property(arbMorphism, (alpha) => check(alpha)),
      { numRuns: 15 },
    );
  });

  it('along χ_A: P ⇒ Ω (random presheaves and subpresheaves)', () => {
    fc.assert(
      fc.property(arbTriple, ([P, , A]) => {
        const O = subobjectClassifier(P.category);
        check(characteristicMap(A, O));
        expect(P).toBeDefined();
      }),
      { numRuns: 25 },
    );
  });

  it('∀ along the map to the terminal presheaf is "true everywhere below", ∃ is "somewhere"', () => {
    const C = parsePoset('0<1');
    const P = presheaf(
      C,
      [
        ['a', 'b'],
        ['u', 'v'],
      ],
      C.arrows.map((a) => (a.dom === a.cod ? [0, 1] : [0, 1])),
    );
    const one = presheaf(
      C,
      [['•'], ['•']],
      C.arrows.map(() => [0]),
    );
    const bang = presheafMorphism(P, one, [
      [0, 0],
      [0, 0],
    ]);
    const A = subpresheaf(P, [[0], [0]]);
    expect(existsAlong(bang, A).at(1)).toEqual([0]);
    expect(forallAlong(bang, A).at(1)).toEqual([]);
    expect(forallAlong(bang, topSubpresheaf(P)).at(1)).toEqual([0]);
  });
});
