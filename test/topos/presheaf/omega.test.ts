import { describe, expect, it } from 'vitest';
import { categoryFromMonoid, parsePoset } from '../../../src/category/index.js';
import type { FiniteCategory } from '../../../src/category/index.js';
import {
  globalTruthValues,
  isSieve,
  presheafMorphism,
  pullbackSieve,
  showSieve,
  sieveGeneratedBy,
  sieveImplies,
  sieveJoin,
  sieveLeq,
  sieveMeet,
  sieveNegate,
  sieves,
  subobjectClassifier,
  checkFunctorial,
  terminalPresheaf,
} from '../../../src/topos/index.js';
import type { Sieve } from '../../../src/topos/index.js';

/** Every subset of arrows into c that is closed under precomposition (independent brute force). */
function bruteSieves(C: FiniteCategory, c: number): string[] {
  const into = C.arrowsInto(c);
  const out: string[] = [];
  for (let mask = 0; mask < 1 << into.length; mask++) {
    const S = into.filter((_, i) => mask & (1 << i)).sort((a, b) => a - b);
    if (isSieve(C, c, S)) out.push(S.join(','));
  }
  return out.sort();
}

describe('sieves and Ω', () => {
  it('the Sierpiński topos (0 < 1): 2 sieves on 0, 3 on 1; the middle value m has ¬m = ∅ and ¬¬m = ⊤', () => {
    const C = parsePoset('0<1');
    const O = subobjectClassifier(C);
    expect(O.sieves[0]!.map((S) => showSieve(C, S))).toEqual(['∅', '{id_0}']);
    expect(O.sieves[1]!.map((S) => showSieve(C, S))).toEqual(['∅', '{0≤1}', '{0≤1, id_1}']);
    const m = O.sieves[1]![1]!;
    const notM = sieveNegate(C, m);
    expect(notM.arrows).toEqual([]);
    expect(showSieve(C, sieveNegate(C, notM))).toBe('{0≤1, id_1}');
    // not Boolean: m ∨ ¬m ≠ ⊤
    expect(sieveJoin(m, notM).arrows.length).toBe(1);
    // Ω restricts along 0 ≤ 1: m ↦ {id_0} (true at 0), ∅ ↦ ∅
    expect(O.omega.restrict(C.arrow('0≤1'), 1)).toBe(1);
    expect(O.omega.restrict(C.arrow('0≤1'), 0)).toBe(0);
    // 3 global truth values: the down-sets ∅, {0}, {0,1}
    expect(globalTruthValues(C, O).length).toBe(3);
  });

  it('sieves agree with brute force over all subsets, on posets and monoids', () => {
    const cats = [
      parsePoset('a<b, a<c'),
      parsePoset('0<1<2'),
      parsePoset('a<c, b<c, c<d'),
      categoryFromMonoid(
        ['1', 'e'],
        [
          [0, 1],
          [1, 1],
        ],
      ),
      categoryFromMonoid(
        ['0', '1', '2'],
        [
          [0, 1, 2],
          [1, 2, 0],
          [2, 0, 1],
        ],
      ),
    ];
    for (const C of cats)
      for (let c = 0; c < C.objects.length; c++)
        expect(
          sieves(C, c)
            .map((S) => S.arrows.join(','))
            .sort(),
        ).toEqual(bruteSieves(C, c));
    // the group Z/3 has only the two trivial sieves; the monoid {1, e} has three: ∅, {e}, {1, e}
    expect(sieves(cats[4]!, 0).length).toBe(2);
    expect(sieves(cats[3]!, 0).length).toBe(3);
  });

  it('Ω is a functorial presheaf and true: 1 ⇒ Ω is natural', () => {
    for (const C of [
      parsePoset('a<b, a<c'),
      categoryFromMonoid(
        ['1', 'e'],
        [
          [0, 1],
          [1, 1],
        ],
      ),
    ]) {
      const O = subobjectClassifier(C);
      checkFunctorial(O.omega);
      presheafMorphism(terminalPresheaf(C), O.omega, O.truth.components);
    }
  });

  it('global truth values of a poset = its down-closed subsets (V-shaped poset a<b, a<c: 5)', () => {
    expect(globalTruthValues(parsePoset('a<b, a<c')).length).toBe(5);
    expect(globalTruthValues(parsePoset('0<1<2')).length).toBe(4);
  });

  it('Heyting operations on Ω(c) by brute force: S ⇒ T is the largest R with R ∧ S ≤ T', () => {
    for (const C of [
      parsePoset('a<b, a<c, b<d, c<d'),
      categoryFromMonoid(
        ['1', 'e'],
        [
          [0, 1],
          [1, 1],
        ],
      ),
    ]) {
      C.objects.forEach((_, c) => {
        const all = sieves(C, c);
        for (const S of all)
          for (const T of all) {
            const imp = sieveImplies(C, S, T);
            const largest = all.filter((R) => sieveLeq(sieveMeet(R, S), T)).reduce<Sieve>((a, b) => sieveJoin(a, b), { object: c, arrows: [] });
            expect(imp.arrows).toEqual(largest.arrows);
            for (const R of all) expect(sieveLeq(R, imp)).toBe(sieveLeq(sieveMeet(R, S), T));
          }
      });
    }
  });

  it('pullback of sieves is functorial: (f∘g)*S = g*(f*S)', () => {
    const C = parsePoset('0<1<2');
    const f = C.arrow('1≤2');
    const g = C.arrow('0≤1');
    for (const S of sieves(C, 2)) expect(pullbackSieve(C, S, C.compose(f, g))).toEqual(pullbackSieve(C, pullbackSieve(C, S, f), g));
    expect(
      sieveGeneratedBy(C, 2, [f])
        .arrows.map((a) => C.arrows[a]!.name)
        .sort(),
    ).toEqual(['0≤2', '1≤2']);
  });
});

describe('Ω(c) is a Heyting algebra on random posets (property test)', () => {
  it('R ≤ (S ⇒ T) ⇔ R ∧ S ≤ T, ¬S = S ⇒ ∅, S ≤ ¬¬S, and pullback preserves ⇒', async () => {
    const fc = (await import('fast-check')).default;
    const { arbPoset } = await import('../random.js');
    fc.assert(
      fc.property(arbPoset(4), (C) => {
        C.objects.forEach((_, c) => {
          const all = sieves(C, c);
          for (const S of all) {
            expect(sieveLeq(S, sieveNegate(C, sieveNegate(C, S)))).toBe(true);
            for (const T of all) {
              const imp = sieveImplies(C, S, T);
              for (const R of all) expect(sieveLeq(R, imp)).toBe(sieveLeq(sieveMeet(R, S), T));
              // Ω(f) is a Heyting map: f*(S ⇒ T) = f*S ⇒ f*T
              for (const f of C.arrowsInto(c)) expect(pullbackSieve(C, imp, f)).toEqual(sieveImplies(C, pullbackSieve(C, S, f), pullbackSieve(C, T, f)));
            }
          }
        });
      }),
      { numRuns: 40 },
    );
  });
});
