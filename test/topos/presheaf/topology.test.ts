import { describe, expect, it } from 'vitest';
import { categoryFromMonoid, parsePoset, ToposError } from '../../../src/category/index.js';
import type { FiniteCategory } from '../../../src/category/index.js';
import {
  allTopologies,
  grothendieckTopology,
  isSheaf,
  matchingFamilies,
  maximalSieve,
  presheaf,
  sheafConditionFailure,
  showSieve,
  sieves,
  topologyAxiomFailure,
  topologyGeneratedBy,
} from '../../../src/topos/index.js';
import type { GrothendieckTopology, Sieve } from '../../../src/topos/index.js';

/** All topologies by brute force: every choice of sets of sieves per object, filtered by the axioms. */
function bruteTopologies(C: FiniteCategory): number {
  const all = C.objects.map((_, c) => sieves(C, c));
  const flat = all.flat();
  let count = 0;
  for (let mask = 0; mask < 1 << flat.length; mask++) {
    const covers: Sieve[][] = C.objects.map(() => []);
    flat.forEach((S, i) => {
      if (mask & (1 << i)) covers[S.object]!.push(S);
    });
    if (!topologyAxiomFailure(C, covers)) count++;
  }
  return count;
}

describe('Grothendieck topologies', () => {
  it('enumeration agrees with brute force over all sets of sieves', () => {
    // Sierpiński 0<1: 5 sieves, 32 candidate sets
    const S = parsePoset('0<1');
    expect(allTopologies(S).length).toBe(bruteTopologies(S));
    expect(allTopologies(S).length).toBe(4); // trivial, dense, closed, chaotic: the 4 subtoposes of Set^(0<1)
    const V = parsePoset('a<b, a<c');
    expect(allTopologies(V).length).toBe(bruteTopologies(V));
    const M = categoryFromMonoid(
      ['1', 'e'],
      [
        [0, 1],
        [1, 1],
      ],
    );
    expect(allTopologies(M).length).toBe(bruteTopologies(M));
  });

  it('every enumerated topology satisfies the axioms', () => {
    const C = parsePoset('a<c, b<c, c<d');
    const ts = allTopologies(C);
    expect(ts.length).toBeGreaterThan(2);
    for (const J of ts) expect(topologyAxiomFailure(C, J.covers)).toBeUndefined();
  });

  it('a broken "topology" names the failing axiom, object and sieve', () => {
    const C = parsePoset('0<1');
    const all = C.objects.map((_, c) => sieves(C, c));
    // no maximal sieve on 0
    expect(() => grothendieckTopology(C, [[], [maximalSieve(C, 1)]])).toThrow(/axiom 'maximal sieve' fails at 0/);
    // the middle sieve {0≤1} covers 1, but its pullback along 0≤1 is {id_0} (fine); the empty sieve on 1 covers but ∅ on 0 does not: stability
    expect(() => grothendieckTopology(C, [[maximalSieve(C, 0)], [all[1]![0]!, maximalSieve(C, 1)]])).toThrow(
      /axiom 'stability' fails: ∅ covers 1 but its pullback ∅ along 0≤1: 0 → 1 does not cover 0/,
    );
    // ∅ covers 0 and {0≤1} covers 1, but ∅ on 1 (locally covering on {0≤1}) does not: transitivity
    expect(() =>
      grothendieckTopology(C, [
        [all[0]![0]!, maximalSieve(C, 0)],
        [all[1]![1]!, maximalSieve(C, 1)],
      ]),
    ).toThrow(/axiom 'transitivity' fails at 1: ∅/);
  });

  it('the sheaf condition: on Sierpiński with the dense topology ({0≤1} covers 1), sheaves are the P with P(1) ≅ P(0)', () => {
    const C = parsePoset('0<1');
    const mid: Sieve = sieves(C, 1)[1]!;
    expect(showSieve(C, mid)).toBe('{0≤1}');
    const J: GrothendieckTopology = topologyGeneratedBy(C, [mid]);
    const P = (m: number[], n0: number): ReturnType<typeof presheaf> =>
      presheaf(
        C,
        [Array.from({ length: n0 }, (_, i) => `a${i}`), m.map((_, i) => `b${i}`)],
        C.arrows.map((a) => (a.dom !== a.cod ? m : a.dom === 0 ? Array.from({ length: n0 }, (_, i) => i) : m.map((_, i) => i))),
      );
    expect(isSheaf(P([0, 1], 2), J)).toBe(true); // bijection
    const notInjective = sheafConditionFailure(P([0, 0], 2), J);
    expect(notInjective).toMatchObject({ object: '1', sieve: '{0≤1}', amalgamations: 2 });
    const notSurjective = sheafConditionFailure(P([0], 2), J);
    expect(notSurjective).toMatchObject({ object: '1', amalgamations: 0 });
    // every presheaf is a sheaf for the trivial topology
    expect(isSheaf(P([0, 0], 2), topologyGeneratedBy(C, []))).toBe(true);
  });

  it('matching families on the maximal sieve correspond to elements (Yoneda)', () => {
    const C = parsePoset('0<1<2');
    const P = presheaf(
      C,
      [
        ['x', 'y'],
        ['x', 'y'],
        ['x', 'y', 'z'],
      ],
      C.arrows.map((a) => (a.dom === a.cod ? (a.dom === 2 ? [0, 1, 2] : [0, 1]) : a.cod === 2 ? [0, 1, 1] : [0, 1])),
    );
    expect(matchingFamilies(P, maximalSieve(C, 2)).length).toBe(3);
    expect(matchingFamilies(P, sieves(C, 2)[2]!).length).toBe(2); // {0≤2, 1≤2}: determined by the value at 1
  });

  it('covering sieves must live on their object', () => {
    const C = parsePoset('0<1');
    expect(() => grothendieckTopology(C, [[maximalSieve(C, 1)], [maximalSieve(C, 1)]])).toThrow(ToposError);
  });
});
