import { describe, expect, it } from 'vitest';
import { categoryFromMonoid, checkCategory, parsePoset, ToposError } from '../../../src/category/index.js';
import { Rng } from '../../../src/random/rng.js';
import {
  circularConv,
  cyclicGroup,
  cyclicShift,
  denseMap,
  finiteGroup,
  globalAveragePool,
  grothendieckConstruction,
  groupAction,
  groupPresheaf,
  isSieve,
  randomVectors,
  shiftDefect,
  sieves,
  stackClassifier,
  subsample2,
} from '../../../src/topos/index.js';

describe('stacks: presheaves of groups and the Grothendieck construction', () => {
  // the chain y → x of a network (arrows against the flow), F(x) = ℤ/4 (input shifts), F(y) = ℤ/2 (shifts mod 2)
  const C = parsePoset('y<x');
  const Z4 = cyclicGroup(4);
  const Z2 = cyclicGroup(2);
  const f = C.arrow('y≤x');
  const maps = C.arrows.map((_, i) => (i === f ? [0, 1, 0, 1] : C.arrows[i]!.dom === C.object('x') ? [0, 1, 2, 3] : [0, 1]));
  const F = groupPresheaf(C, [Z2, Z4], maps);

  it('∫F has (α, g) for g ∈ F(dom α): |arrows| = Σ_α |F(dom α)|, and the composition law is a category', () => {
    const T = grothendieckConstruction(F);
    expect(T.objects).toEqual(['(y,•)', '(x,•)']);
    expect(T.arrows.length).toBe(2 + 4 + 2); // id_y × ℤ/2, id_x × ℤ/4, y≤x × ℤ/2
    checkCategory(T);
    // (y≤x, 1)∘(id_y, 1) = (y≤x, 1·1) = (y≤x, 0); (id_x, 3)∘(y≤x, 0) = (y≤x, F_{y≤x}(3)·0) = (y≤x, 1)
    const a = (name: string): number => T.arrow(name);
    expect(T.arrows[T.compose(a('(y≤x,1)'), a('(id_y,1)'))]!.name).toBe('(y≤x,0)');
    expect(T.arrows[T.compose(a('(id_x,3)'), a('(y≤x,0)'))]!.name).toBe('(y≤x,1)');
  });

  it('Ω_F: sieves in ∫F; on (x,•) with F(x) = ℤ/4 a group, the sieves of the endomorphisms are only ∅ and all', () => {
    const { total, omega } = stackClassifier(F);
    const x = total.object('(x,•)');
    const y = total.object('(y,•)');
    // sieves on (y,•): ∅ or all of ℤ/2 (a group has no proper non-empty sieve): 2
    expect(omega.sieves[y]!.length).toBe(2);
    // on (x,•): ∅, the arrows from y (all 2 of them, closed under ℤ/2), everything: 3
    expect(omega.sieves[x]!.length).toBe(3);
    expect(sieves(total, x).length).toBe(3);
    // a trivial F gives back Ω of C
    const trivial = groupPresheaf(
      C,
      [cyclicGroup(1), cyclicGroup(1)],
      C.arrows.map(() => [0]),
    );
    expect(stackClassifier(trivial).omega.sieves.map((s) => s.length)).toEqual([2, 3]);
  });

  it('with an action (objects (U, ξ)): ℤ/2 swapping the two bits of patterns, restriction = bitwise NOT', () => {
    const Z2b = cyclicGroup(2);
    const H = groupPresheaf(
      C,
      [Z2b, Z2b],
      C.arrows.map(() => [0, 1]),
    );
    const pats = ['00', '01', '10', '11'];
    const swap = [0, 2, 1, 3]; // 01 ↔ 10
    const act = [
      [[0, 1, 2, 3], swap],
      [[0, 1, 2, 3], swap],
    ];
    const not = [3, 2, 1, 0];
    const A = groupAction(
      H,
      [pats, pats],
      act,
      C.arrows.map((a) => (a.dom === a.cod ? [0, 1, 2, 3] : not)),
    );
    const T = grothendieckConstruction(H, A);
    expect(T.objects.length).toBe(8);
    // id_x: each (η, g) gives one arrow (x,η) → (x,g·η): 8; the same at y: 8; y≤x: each (η, g) with ξ = NOT(g·η): 8
    expect(T.arrows.length).toBe(24);
    checkCategory(T);
    // the fibre over x is the action groupoid: 00 is fixed by both elements, 01 and 10 are swapped
    expect(T.hom(T.object('(x,00)'), T.object('(x,00)')).length).toBe(2);
    expect(T.hom(T.object('(x,01)'), T.object('(x,10)')).length).toBe(1);
    expect(T.hom(T.object('(x,01)'), T.object('(x,11)')).length).toBe(0);
    // Ω_F: sieves on (x,00) agree with brute force over all subsets of arrows into it
    const { total, omega } = stackClassifier(H, A);
    const c = total.object('(x,00)');
    const into = total.arrowsInto(c);
    let brute = 0;
    for (let mask = 0; mask < 1 << into.length; mask++)
      if (
        isSieve(
          total,
          c,
          into.filter((_, i) => mask & (1 << i)),
        )
      )
        brute++;
    expect(omega.sieves[c]!.length).toBe(brute);
    // a restriction that is not equivariant is rejected, naming the arrow
    const first = [0, 0, 3, 3]; // ξ ↦ (ξ₀, ξ₀)
    expect(() =>
      groupAction(
        H,
        [pats, pats],
        act,
        C.arrows.map((a) => (a.dom === a.cod ? [0, 1, 2, 3] : first)),
      ),
    ).toThrow(/restriction along y≤x: y → x is not equivariant/);
  });

  it('a map that is not a homomorphism or not functorial is rejected', () => {
    const bad = C.arrows.map((_, i) => (i === f ? [0, 1, 1, 1] : C.arrows[i]!.dom === C.object('x') ? [0, 1, 2, 3] : [0, 1]));
    expect(() => groupPresheaf(C, [Z2, Z4], bad)).toThrow(/not a homomorphism/);
    expect(() =>
      finiteGroup(
        ['e', 'a'],
        [
          [0, 1],
          [1, 1],
        ],
      ),
    ).toThrow(/no inverse/);
    const M = categoryFromMonoid(
      ['1', 'e'],
      [
        [0, 1],
        [1, 1],
      ],
    );
    // the swap of ℤ/2 moves the identity, so it is not a homomorphism
    expect(() =>
      groupPresheaf(
        M,
        [Z2],
        [
          [0, 1],
          [1, 0],
        ],
      ),
    ).toThrow(ToposError);
  });
});

describe('equivariance defects of layers under cyclic shifts', () => {
  const rng = new Rng(5);
  const xs8 = randomVectors(rng, 6, 8);
  const conv = circularConv([0.5, -1, 2]);
  const W = randomVectors(rng, 8, 8);

  it('circular convolution: zero for every shift', () => {
    for (let s = 0; s < 8; s++) expect(shiftDefect(conv, s, (t) => t, xs8)).toBeLessThan(1e-12);
    // the shift really moves the data
    expect(cyclicShift([1, 2, 3, 4], 1)).toEqual([4, 1, 2, 3]);
  });

  it('a dense layer: not zero', () => {
    expect(shiftDefect(denseMap(W), 1, (t) => t, xs8)).toBeGreaterThan(0.1);
  });

  it('global average pooling: invariant (the output does not move)', () => {
    for (let s = 0; s < 8; s++) expect(shiftDefect(globalAveragePool, s, undefined, xs8)).toBeLessThan(1e-12);
    expect(shiftDefect(conv, 1, undefined, xs8)).toBeGreaterThan(0.1); // conv is equivariant, not invariant
  });

  it('stride-2 subsampling: equivariant for even shifts (s ↦ s/2), for odd shifts no output shift works', () => {
    for (const s of [0, 2, 4, 6]) expect(shiftDefect(subsample2, s, (t) => t / 2, xs8)).toBe(0);
    for (const s of [1, 3, 5, 7]) {
      const best = Math.min(...[0, 1, 2, 3].map((t) => shiftDefect(subsample2, s, () => t, xs8)));
      expect(best).toBeGreaterThan(0.1);
    }
  });
});
