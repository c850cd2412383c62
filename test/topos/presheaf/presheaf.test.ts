import { describe, expect, it } from 'vitest';
import { categoryFromGraph, parsePoset, ToposError } from '../../../src/category/index.js';
import fc from 'fast-check';
import {
  composeMorphisms,
  globalSections,
  identityMorphism,
  presheaf,
  presheafFromGenerators,
  presheafMorphism,
  productPresheaf,
  terminalPresheaf,
} from '../../../src/topos/index.js';
import { arbPosetPresheaf } from '../random.js';

describe('presheaves', () => {
  // on 0 < 1: P(1) = {u, v, w} → P(0) = {s, t}, u,v ↦ s, w ↦ t
  const C = parsePoset('0<1');
  const f = C.arrow('0≤1');
  const maps = (m: number[]): number[][] => C.arrows.map((_, i) => (i === f ? m : C.isIdentity(i) && C.arrows[i]!.dom === 0 ? [0, 1] : [0, 1, 2]));
  const P = presheaf(
    C,
    [
      ['s', 't'],
      ['u', 'v', 'w'],
    ],
    maps([0, 0, 1]),
  );

  it('restriction maps; a global section is determined by its value at the top object 1', () => {
    expect(P.restrict(f, 2)).toBe(1);
    // a global section is x ∈ P(1) with its restriction: 3 of them
    expect(globalSections(P)).toEqual([
      [0, 0],
      [0, 1],
      [1, 2],
    ]);
  });

  it('functoriality is checked: a map that moves an element under the identity is rejected', () => {
    const bad = C.arrows.map((_, i) => (i === f ? [0, 0, 1] : C.arrows[i]!.dom === 0 ? [1, 0] : [0, 1, 2]));
    expect(() =>
      presheaf(
        C,
        [
          ['s', 't'],
          ['u', 'v', 'w'],
        ],
        bad,
      ),
    ).toThrow(/not functorial: P\(id_0\) moves s/);
    expect(() =>
      presheaf(
        C,
        [
          ['s', 't'],
          ['u', 'v', 'w'],
        ],
        maps([0, 0, 5]),
      ),
    ).toThrow(/sends w to 5/);
  });

  it('restrictions that do not compose are rejected, naming the arrows (chain 0<1<2)', () => {
    const D = parsePoset('0<1<2');
    const els = [
      ['a', 'b'],
      ['a', 'b'],
      ['a', 'b'],
    ];
    const m = D.arrows.map((a) => (a.dom === a.cod ? [0, 1] : a.name === '0≤2' ? [0, 1] : [1, 0]));
    // P(0≤2) must be P(0≤1)∘P(1≤2) = swap∘swap = id: fine
    expect(() => presheaf(D, els, m)).not.toThrow();
    const m2 = D.arrows.map((a) => (a.dom === a.cod ? [0, 1] : a.name === '0≤2' ? [1, 0] : [1, 0]));
    expect(() => presheaf(D, els, m2)).toThrow(/not functorial: P\(1≤2∘0≤1\) ≠ P\(0≤1\)∘P\(1≤2\)/);
  });

  it('presheaves on a free category are given by one map per edge', () => {
    const G = categoryFromGraph(
      ['a', 'b', 'c'],
      [
        { name: 'f', src: 'a', tgt: 'b' },
        { name: 'g', src: 'b', tgt: 'c' },
      ],
    );
    const Q = presheafFromGenerators(
      G,
      [
        ['0', '1'],
        ['0', '1'],
        ['0', '1', '2'],
      ],
      [
        [1, 0],
        [0, 0, 1],
      ],
    );
    // Q(f.g) = Q(f)∘Q(g): 2 ↦ 1 ↦ 0
    expect(Q.restrict(G.arrow('f.g'), 2)).toBe(0);
    expect(Q.restrict(G.arrow('f.g'), 0)).toBe(1);
  });

  it('morphisms: naturality is checked, composition and identities', () => {
    const one = terminalPresheaf(C);
    const bang = presheafMorphism(P, one, [
      [0, 0],
      [0, 0, 0],
    ]);
    expect(composeMorphisms(bang, identityMorphism(P)).components).toEqual(bang.components);
    // P(1) → P(1) swapping u and w is not natural (u ↦ s but w ↦ t)
    expect(() =>
      presheafMorphism(P, P, [
        [0, 1],
        [2, 1, 0],
      ]),
    ).toThrow(/not natural at 0≤1: 0 → 1/);
  });

  it('products: sizes multiply, projections are natural, sections of P×Q = pairs of sections', () => {
    fc.assert(
      fc.property(arbPosetPresheaf(3), (Q) => {
        const one = terminalPresheaf(Q.category);
        const { product, first, second } = productPresheaf(Q, Q);
        presheafMorphism(product, Q, first.components);
        presheafMorphism(product, Q, second.components);
        Q.category.objects.forEach((_, c) => expect(product.size(c)).toBe(Q.size(c) ** 2));
        expect(globalSections(product).length).toBe(globalSections(Q).length ** 2);
        expect(globalSections(one).length).toBe(1);
      }),
      { numRuns: 40 },
    );
  });

  it('global sections are exactly the compatible families (brute force over all families)', () => {
    fc.assert(
      fc.property(arbPosetPresheaf(3), (Q) => {
        const C2 = Q.category;
        let count = 0;
        const n = C2.objects.length;
        const sizes = C2.objects.map((_, c) => Q.size(c));
        const total = sizes.reduce((a, b) => a * b, 1);
        for (let k = 0; k < total; k++) {
          let r = k;
          const s = sizes.map((m) => {
            const v = r % m;
            r = Math.floor(r / m);
            return v;
          });
          if (C2.arrows.every((a, f) => s[a.dom] === Q.restrict(f, s[a.cod]!))) count++;
        }
        expect(globalSections(Q).length).toBe(count);
        expect(n).toBeGreaterThan(0);
      }),
      { numRuns: 60 },
    );
  });

  it('bad sizes are ToposErrors', () => {
    expect(() => presheaf(C, [['s']], [])).toThrow(ToposError);
  });
});
