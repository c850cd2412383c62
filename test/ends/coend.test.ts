import { describe, expect, it } from 'vitest';
import { setDifunctor } from '../../src/category/index.js';
import fc from 'fast-check';
import {
  coinvariants,
  conjugacyClasses,
  groupCategory,
  homFunctor,
  linearize,
  projectToCoend,
  representation,
  setCoend,
  tensorRepFunctor,
  vectCoend,
} from '../../src/ends/index.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { matmul } from '../../src/linalg/matrix.js';
import { Rng } from '../../src/random/rng.js';
import { conjugacyClassesBrute, posetFrom, rank } from './helpers.js';
import { categoryFromMonoid, finiteCategory } from '../../src/category/finite.js';

describe('set-valued coends (union–find)', () => {
  it('the coend of Hom over a group is its set of conjugacy classes', () => {
    for (const [g, k] of [
      ['S(3)', 3],
      ['S(4)', 5],
      ['S(5)', 7],
      ['D(4)', 5],
      ['D(5)', 4],
      ['D(6)', 6],
      ['S(3)xZ(2)', 6],
    ] as const) {
      const G = groupCategory(parseGroup(g));
      const Q = setCoend(homFunctor(G.category, { check: G.order <= 24 }));
      const brute = conjugacyClassesBrute(
        (a, b) => G.category.compose(a, b),
        (a) => G.inverse[a]!,
        G.order,
      );
      expect(Q.classes.length, g).toBe(k);
      expect(Q.classes.map((c) => c.map((e) => e.element))).toEqual(brute);
    }
  });

  it('an abelian group of order n has n classes (every class a single element)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 4 }), (n, m) => {
        const g = m === 1 ? `Z(${n})` : `Z(${n})xZ(${m})`;
        const q = conjugacyClasses(parseGroup(g));
        expect(q.classes.length).toBe(n * m);
        expect(q.classes.every((c) => c.length === 1)).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it('the coend of Hom over a poset has one class per element (only identities are endomorphisms)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(fc.tuple(fc.nat(5), fc.nat(5)), { maxLength: 8 }), (n, rel) => {
        const C = posetFrom(
          n,
          rel.map(([a, b]) => [a % n, b % n] as [number, number]),
        );
        const Q = setCoend(homFunctor(C));
        expect(Q.classes.length).toBe(n);
        expect(Q.classes.map((c) => c[0]!.label)).toEqual(C.objects.map((o) => `id_${o}`));
      }),
      { numRuns: 30 },
    );
  });

  it('the coend of Hom is invariant under equivalence: two isomorphic objects give one class', () => {
    // id_a, id_b, f: a → b, g: b → a with g∘f = id_a and f∘g = id_b
    const arrows = [
      { name: 'id_a', dom: 0, cod: 0 },
      { name: 'id_b', dom: 1, cod: 1 },
      { name: 'f', dom: 0, cod: 1 },
      { name: 'g', dom: 1, cod: 0 },
    ];
    const C = finiteCategory(['a', 'b'], arrows, [0, 1], (g, f) => (g < 2 ? f : f < 2 ? g : g === 3 ? 0 : 1));
    const Q = setCoend(homFunctor(C));
    expect(Q.classes.length).toBe(1);
    expect(Q.classes[0]!.map((e) => e.label).sort()).toEqual(['id_a', 'id_b']);
    // an idempotent monoid {1, e} (commutative): two classes, one per element
    const M = categoryFromMonoid(
      ['1', 'e'],
      [
        [0, 1],
        [1, 1],
      ],
    );
    expect(setCoend(homFunctor(M)).classes.map((c) => c.map((e) => e.label))).toEqual([['1'], ['e']]);
  });

  it('the coend of a functor constant in its first slot is the colimit: on a chain, the last set', () => {
    // G(0) = {0,1,2} → G(1) = {0,1} (x ↦ x mod 2) → G(2) = {0,1,2,3} (x ↦ 3x)
    const sizes = [3, 2, 4],
      maps = [
        [0, 1, 0],
        [0, 3],
      ];
    const C = posetFrom(3, [
      [0, 1],
      [1, 2],
    ]);
    const along = (i: number, j: number, x: number): number => {
      for (let t = i; t < j; t++) x = maps[t]![x]!;
      return x;
    };
    const F = setDifunctor({
      name: 'G',
      category: C,
      size: (_a, b) => sizes[b]!,
      left: (_f, b) => Array.from({ length: sizes[b]! }, (_, x) => x),
      right: (_a, g) => Array.from({ length: sizes[C.arrows[g]!.dom]! }, (_, x) => along(C.arrows[g]!.dom, C.arrows[g]!.cod, x)),
    });
    const Q = setCoend(F);
    expect(Q.size).toBe(9);
    expect(Q.classes.length).toBe(4);
    // every element lands in the class of its image in G(2)
    for (let c = 0; c < 3; c++) for (let x = 0; x < sizes[c]!; x++) expect(Q.classOf[Q.offsets[c]! + x]).toBe(Q.classOf[Q.offsets[2]! + along(c, 2, x)]);
  });
});

describe('vector-valued coends (quotients)', () => {
  /** χ of V, T(k), sums from a permutation's fixed points — independent of repMatrix. */
  const chi = (rep: string, fixed: number): number => {
    const atom = (s: string): number => (s === 'V' ? fixed : s === 'T(0)' ? 1 : /^T\((\d)\)$/.test(s) ? fixed ** Number(s[2]) : NaN);
    return rep.split('+').reduce((acc, s) => acc + atom(s.trim()), 0);
  };
  const cases = [
    ['S(3)', 'V', 'V'],
    ['S(3)', 'V', 'T(0)'],
    ['S(4)', 'T(2)', 'V'],
    ['S(4)', 'V+T(0)', 'V'],
    ['Z(6)', 'V', 'V'],
    ['D(4)', 'T(2)', 'T(0)'],
    ['D(5)', 'V', 'V+V'],
  ] as const;
  it.each(cases)('%s: dim %s ⊗_G %s equals the character inner product', (g, a, b) => {
    const G = groupCategory(parseGroup(g));
    const Q = vectCoend(tensorRepFunctor(G, representation(G, parseRep(a)), representation(G, parseRep(b))));
    let s = 0;
    for (const p of G.perms!) {
      const fixed = p.reduce((n, v, i) => n + (v === i ? 1 : 0), 0);
      s += chi(a, fixed) * chi(b, fixed);
    }
    expect(Q.dim).toBe(Math.round(s / G.order));
    expect(Math.abs(s / G.order - Math.round(s / G.order))).toBeLessThan(1e-12);
    expect(coinvariants(parseGroup(g), parseRep(a), parseRep(b)).characterInnerProduct).toBeCloseTo(s / G.order, 12);
  });

  it('the projection kills exactly the relations F(f, c)x − F(c′, f)x and has orthonormal rows', () => {
    const G = groupCategory(parseGroup('D(4)'));
    const F = tensorRepFunctor(G, representation(G, parseRep('V')), representation(G, parseRep('V')));
    const Q = vectCoend(F);
    const rng = new Rng(3);
    const n = F.dim(0, 0);
    const rels: number[][] = [];
    for (let f = 0; f < G.order; f++) {
      const x = { rows: n, cols: 1, data: Float64Array.from({ length: n }, () => rng.normal()) };
      const d = matmul(F.left(f, 0), x).data.map((v, i) => v - matmul(F.right(0, f), x).data[i]!);
      rels.push(Array.from(d));
      projectToCoend(Q, d).forEach((v) => expect(Math.abs(v)).toBeLessThan(1e-10));
    }
    // dim = n − rank of the relations (brute force over all arrows and basis vectors)
    const all: number[][] = [];
    for (let f = 0; f < G.order; f++)
      for (let e = 0; e < n; e++) {
        all.push(Array.from({ length: n }, (_, i) => F.left(f, 0).data[i * n + e]! - F.right(0, f).data[i * n + e]!));
      }
    expect(Q.dim).toBe(n - rank(all));
    const P = Q.projection;
    for (let k = 0; k < P.rows; k++)
      for (let l = 0; l < P.rows; l++) {
        let s = 0;
        for (let j = 0; j < P.cols; j++) s += P.data[k * P.cols + j]! * P.data[l * P.cols + j]!;
        expect(s).toBeCloseTo(k === l ? 1 : 0, 10);
      }
  });

  it('free vector spaces preserve colimits: dim ∫^c R[F] = number of classes of ∫^c F', () => {
    for (const g of ['S(3)', 'D(4)', 'Z(5)', 'S(4)']) {
      const H = homFunctor(groupCategory(parseGroup(g)).category);
      expect(vectCoend(linearize(H)).dim, g).toBe(setCoend(H).classes.length);
    }
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.tuple(fc.nat(4), fc.nat(4)), { maxLength: 6 }), (n, rel) => {
        const H = homFunctor(
          posetFrom(
            n,
            rel.map(([a, b]) => [a % n, b % n] as [number, number]),
          ),
        );
        expect(vectCoend(linearize(H)).dim).toBe(setCoend(H).classes.length);
      }),
      { numRuns: 20 },
    );
  });
});
