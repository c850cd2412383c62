import { describe, expect, it } from 'vitest';
import { setDifunctor } from '../../src/category/index.js';
import type { SetDifunctor } from '../../src/category/index.js';
import fc from 'fast-check';
import { groupCategory, homFunctor, homRepFunctor, representation, setEnd, vectEnd, wedgeComponent } from '../../src/ends/index.js';

import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { equivariantBasis } from '../../src/symmetry/solve/solver.js';
import { posetFrom, rank } from './helpers.js';

/** Brute force: every tuple in Π_c F(c, c), kept when every arrow's wedge equation holds. */
function wedgesBrute(F: SetDifunctor): number[][] {
  const C = F.category,
    n = C.objects.length;
  let tuples: number[][] = [[]];
  for (let c = 0; c < n; c++) tuples = tuples.flatMap((t) => Array.from({ length: F.size(c, c) }, (_, x) => [...t, x]));
  return tuples.filter((x) => C.arrows.every((a, f) => F.right(a.dom, f)[x[a.dom]!] === F.left(f, a.cod)[x[a.cod]!]));
}

/**
 * A functor constant in its first slot from a covariant functor on the chain 0 < 1 < … < k−1 given
 * by arbitrary functions g_i: G(i) → G(i+1) (composites along the chain). Its end is lim G = G(0)
 * (0 is initial) and its coend is colim G = G(k−1) (k−1 is terminal).
 */
function chainFunctor(sizes: number[], maps: number[][]): SetDifunctor {
  const k = sizes.length;
  const C = posetFrom(
    k,
    Array.from({ length: k - 1 }, (_, i) => [i, i + 1] as [number, number]),
  );
  const along = (i: number, j: number, x: number): number => {
    for (let t = i; t < j; t++) x = maps[t]![x]!;
    return x;
  };
  return setDifunctor({
    name: 'G∘π₂',
    category: C,
    size: (_a, b) => sizes[b]!,
    left: (_f, b) => Array.from({ length: sizes[b]! }, (_, x) => x),
    right: (_a, g) => Array.from({ length: sizes[C.arrows[g]!.dom]! }, (_, x) => along(C.arrows[g]!.dom, C.arrows[g]!.cod, x)),
  });
}

const chainArb = fc
  .array(fc.integer({ min: 1, max: 3 }), { minLength: 1, maxLength: 4 })
  .chain((sizes) =>
    fc.tuple(
      fc.constant(sizes),
      fc.tuple(...sizes.slice(0, -1).map((_, i) => fc.array(fc.nat(sizes[i + 1]! - 1), { minLength: sizes[i]!, maxLength: sizes[i]! }))),
    ),
  );

describe('set-valued ends (wedges)', () => {
  it('the end of Hom over a group is its centre (brute force)', () => {
    for (const [g, centre] of [
      ['S(3)', 1],
      ['S(4)', 1],
      ['D(4)', 2],
      ['D(6)', 2],
      ['Z(7)', 7],
      ['S(3)xZ(2)', 2],
    ] as const) {
      const G = groupCategory(parseGroup(g));
      const E = setEnd(homFunctor(G.category));
      const tab = (a: number, b: number): number => G.category.compose(a, b);
      const brute = Array.from({ length: G.order }, (_, x) => x).filter((x) =>
        Array.from({ length: G.order }, (_, y) => y).every((y) => tab(x, y) === tab(y, x)),
      );
      expect(E.count, g).toBe(centre);
      expect(E.wedges.map((w) => w.elements[0])).toEqual(brute);
    }
  });

  it('the end of Hom over a poset is the single wedge of identities', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.tuple(fc.nat(4), fc.nat(4)), { maxLength: 6 }), (n, rel) => {
        const C = posetFrom(
          n,
          rel.map(([a, b]) => [a % n, b % n] as [number, number]),
        );
        const E = setEnd(homFunctor(C));
        expect(E.count).toBe(1);
      }),
      { numRuns: 30 },
    );
  });

  it('matches brute force on random chain diagrams; the end of G∘π₂ is lim G = G(0)', () => {
    fc.assert(
      fc.property(chainArb, ([sizes, maps]) => {
        const F = chainFunctor(sizes, maps);
        const E = setEnd(F);
        const brute = wedgesBrute(F);
        expect(E.count).toBe(brute.length);
        expect(E.wedges.map((w) => w.elements)).toEqual(brute);
        expect(E.count).toBe(sizes[0]);
      }),
      { numRuns: 60 },
    );
  });

  it('lists at most `limit` wedges but counts all', () => {
    const E = setEnd(homFunctor(groupCategory(parseGroup('Z(9)')).category), { limit: 4 });
    expect(E.count).toBe(9);
    expect(E.wedges.length).toBe(4);
    expect(E.complete).toBe(false);
  });
});

describe('vector-valued ends: Hom(ρ(−), σ(−)) over BG is Hom_G(ρ, σ)', () => {
  const cases = [
    ['S(3)', 'V', 'V'],
    ['S(3)', 'T(2)', 'V'],
    ['S(4)', 'V', 'V'],
    ['S(4)', 'T(2)', 'V'],
    ['S(4)', 'V+T(0)', 'V'],
    ['Z(5)', 'V', 'V'],
    ['Z(4)', 'T(2)', 'T(0)'],
    ['D(4)', 'V', 'V'],
    ['D(5)', 'T(2)', 'V'],
    ['O(1)', 'V', 'V'],
    ['O(1)', 'T(2)', 'T(0)'],
    ['S(3)xZ(2)', 'V', 'V'],
    ['Trans(2,3)', 'V', 'V'],
  ] as const;
  it.each(cases)('%s: Hom(%s, %s) has the dimension the equivariance solver gives', (g, a, b) => {
    const G = groupCategory(parseGroup(g));
    const rho = representation(G, parseRep(a)),
      sigma = representation(G, parseRep(b));
    const E = vectEnd(homRepFunctor(G, rho, sigma));
    expect(E.dim).toBe(equivariantBasis(parseGroup(g), parseRep(a), parseRep(b)).dim);
    // brute force: n − rank of all the equations σ(g)W − Wρ(g) = 0, by Gaussian elimination
    const nIn = rho.matrices[0]!.rows,
      nOut = sigma.matrices[0]!.rows,
      n = nIn * nOut;
    const rows: number[][] = [];
    G.matrices.forEach((_, h) => {
      const S = sigma.matrices[h]!.data,
        R = rho.matrices[h]!.data;
      for (let i = 0; i < nOut; i++)
        for (let j = 0; j < nIn; j++) {
          const row = new Array<number>(n).fill(0);
          for (let t = 0; t < nOut; t++) row[t * nIn + j]! += S[i * nOut + t]!;
          for (let t = 0; t < nIn; t++) row[i * nIn + t]! -= R[t * nIn + j]!;
          rows.push(row);
        }
    });
    expect(E.dim).toBe(n - rank(rows));
    // every basis wedge is equivariant for every element, and the basis is orthonormal
    for (let k = 0; k < E.dim; k++) {
      const W = wedgeComponent(E, k, 0);
      for (const row of rows) expect(Math.abs(row.reduce((s, v, i) => s + v * W[i]!, 0))).toBeLessThan(1e-10);
      for (let l = 0; l < E.dim; l++) {
        const V = wedgeComponent(E, l, 0);
        expect(W.reduce((s, v, i) => s + v * V[i]!, 0)).toBeCloseTo(k === l ? 1 : 0, 10);
      }
    }
  });

  it('property: random finite groups and representations agree with the equivariance solver', () => {
    const groupArb = fc.oneof(
      fc.integer({ min: 2, max: 6 }).map((n) => `Z(${n})`),
      fc.integer({ min: 3, max: 5 }).map((n) => `D(${n})`),
      fc.constantFrom('S(3)', 'S(4)', 'Z(2)xZ(2)'),
    );
    const repArb = fc.array(fc.constantFrom('V', 'T(0)', 'T(2)'), { minLength: 1, maxLength: 2 }).map((p) => p.join('+'));
    fc.assert(
      fc.property(groupArb, repArb, repArb, (g, a, b) => {
        fc.pre(!(a.includes('T(2)') && b.includes('T(2)'))); // keep Hom small
        const G = groupCategory(parseGroup(g));
        const E = vectEnd(homRepFunctor(G, representation(G, parseRep(a)), representation(G, parseRep(b)), { check: false }));
        expect(E.dim).toBe(equivariantBasis(parseGroup(g), parseRep(a), parseRep(b)).dim);
      }),
      { numRuns: 15 },
    );
  });

  it('DeepSets: the end for S(n) on V → V is spanned by I and 11ᵀ', () => {
    const G = groupCategory(parseGroup('S(4)'));
    const V = representation(G, parseRep('V'));
    const E = vectEnd(homRepFunctor(G, V, V));
    expect(E.dim).toBe(2);
    // a·I + b·11ᵀ lies in the span: its projection onto the basis recovers it
    const target = Array.from({ length: 16 }, (_, i) => (Math.floor(i / 4) === i % 4 ? 2 : 0) + 0.5);
    const proj = new Array<number>(16).fill(0);
    for (let k = 0; k < 2; k++) {
      const W = wedgeComponent(E, k, 0);
      const c = W.reduce((s, v, i) => s + v * target[i]!, 0);
      W.forEach((v, i) => (proj[i]! += c * v));
    }
    proj.forEach((v, i) => expect(v).toBeCloseTo(target[i]!, 10));
  });

  it('over a category with only identities the end is all of ⊕_c F(c, c)', () => {
    const C = posetFrom(3, []);
    const E = vectEnd({
      name: 'R²',
      category: C,
      dim: () => 2,
      left: () => ({ rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, 1) }),
      right: () => ({ rows: 2, cols: 2, data: Float64Array.of(1, 0, 0, 1) }),
    });
    expect(E.dim).toBe(6);
    expect(E.equations).toBe(0);
  });
});
