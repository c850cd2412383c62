import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  conv2dSame,
  coverCategory,
  coverOf,
  glueConvolution,
  linearize,
  patchGrid,
  pointFunctor,
  sectionsCoend,
  setCoend,
  vectCoend,
} from '../../src/ends/index.js';
import { glue } from '../../src/topos/gluing/glue.js';
import { checkCategory } from '../../src/category/finite.js';
import type { Section } from '../../src/topos/gluing/glue.js';

const grid = fc.record({
  h: fc.integer({ min: 1, max: 9 }),
  w: fc.integer({ min: 1, max: 14 }),
  kh: fc.constantFrom(1, 3),
  kw: fc.constantFrom(1, 3, 5),
  ph: fc.integer({ min: 1, max: 6 }),
  pw: fc.integer({ min: 1, max: 7 }),
  fh: fc.double({ min: 0.01, max: 1, noNaN: true }),
  fw: fc.double({ min: 0.01, max: 1, noNaN: true }),
  seed: fc.integer({ min: 0, max: 1000 }),
});
const values = (n: number, seed: number): number[] => Array.from({ length: n }, (_, i) => Math.sin(seed + 1.7 * i) + 0.5 * Math.cos(0.3 * seed * i));

describe('gluing as a coend', () => {
  it('the local convolution is translation-equivariant away from the border', () => {
    const x = values(20, 1),
      k = [0.2, -1, 0.5];
    const shifted = [0, 0, 0, ...x.slice(0, 17)];
    const y = conv2dSame(x, 1, 20, k, 1, 3),
      ys = conv2dSame(shifted, 1, 20, k, 1, 3);
    for (let t = 4; t < 19; t++) expect(ys[t]).toBeCloseTo(y[t - 3]!, 14);
  });

  it('overlap-add of locally convolved patches (the coend) equals the global convolution: 1-D and 2-D, random sizes', () => {
    fc.assert(
      fc.property(grid, ({ h, w, kh, kw, ph, pw, fh, fw, seed }) => {
        const hh = Math.max(1, Math.ceil(fh * ph)),
          hw = Math.max(1, Math.ceil(fw * pw));
        fc.pre(patchGrid(h, w, ph, pw, hh, hw).length <= 24); // keep the cover category small
        const x = values(h * w, seed),
          k = values(kh * kw, seed + 7);
        const r = glueConvolution(x, h, w, k, kh, kw, { ph, pw, hh, hw });
        expect(r.maxError).toBeLessThan(1e-12);
        expect(r.classes).toBe(h * w); // one coend class per global point
        const direct = conv2dSame(x, h, w, k, kh, kw);
        r.glued.forEach((v, t) => expect(Math.abs(v - direct[t]!)).toBeLessThan(1e-12));
      }),
      { numRuns: 60 },
    );
  });

  it('a layer that is not translation-equivariant does not glue to the global computation', () => {
    const x = values(40, 2),
      k = [0.25, 0.5, 0.25];
    // the same kernel plus a term in the patch's own coordinates: position-dependent, not equivariant
    const bad = (v: Float64Array, ph: number, pw: number): Float64Array => conv2dSame(v, ph, pw, k, 1, 3).map((y, t) => y + 0.1 * t * v[t]!);
    const r = glueConvolution(x, 1, 40, k, 1, 3, { ph: 1, pw: 10, hh: 1, hw: 7 }, bad);
    expect(r.maxError).toBeGreaterThan(0.1);
    // and a position-aware layer that uses the patch origin to undo the shift is fine again
    const aware = (v: Float64Array, ph: number, pw: number, o: { r: number; c: number }): Float64Array =>
      conv2dSame(v, ph, pw, k, 1, 3).map((y, t) => y + 0.1 * (t + o.c) * v[t]!);
    const global = conv2dSame(x, 1, 40, k, 1, 3).map((y, t) => y + 0.1 * t * x[t]!);
    const r2 = glueConvolution(x, 1, 40, k, 1, 3, { ph: 1, pw: 10, hh: 1, hw: 7 }, aware);
    r2.glued.forEach((v, t) => expect(v).toBeCloseTo(global[t]!, 12));
  });

  it('the patches cover the grid and overlap as asked', () => {
    const P = patchGrid(5, 11, 2, 4, 2, 3);
    const covered = new Set<number>();
    for (const R of P) for (let i = R.r0; i < R.r1; i++) for (let j = R.c0; j < R.c1; j++) covered.add(i * 11 + j);
    expect(covered.size).toBe(55);
    expect(() => patchGrid(4, 4, 2, 2, 3, 1)).toThrow(/leaves gaps/);
  });

  it('the vector coend of the point functor is R^{points}, and overlap-add vanishes on its relations', () => {
    const points = ['0', '1', '2', '3', '4', '5'];
    const K = coverCategory(
      coverOf(points, [
        [0, 1, 2],
        [2, 3, 4],
        [3, 4, 5],
      ]),
    );
    const F = pointFunctor(K);
    const R = linearize(F);
    const Q = vectCoend(R);
    expect(Q.dim).toBe(6);
    expect(setCoend(F).classes.length).toBe(6);
    // overlap-add A: ⊕_c R^{Pt(c,c)} → R^6, e_(c,x) ↦ e_{point}; A·(F(f,c)x − F(c',f)x) = 0 for every arrow
    const C = K.category;
    const A = (c: number, v: Float64Array): number[] => {
      const out = new Array<number>(6).fill(0);
      K.pointsOf[c]!.forEach((t, i) => (out[t]! += v[i]!));
      return out;
    };
    C.arrows.forEach((a, f) => {
      if (C.isIdentity(f)) return;
      for (let x = 0; x < R.dim(a.cod, a.dom); x++) {
        const L = R.left(f, a.dom),
          Rt = R.right(a.cod, f);
        const lhs = A(
          a.dom,
          Float64Array.from({ length: L.rows }, (_, i) => L.data[i * L.cols + x]!),
        );
        const rhs = A(
          a.cod,
          Float64Array.from({ length: Rt.rows }, (_, i) => Rt.data[i * Rt.cols + x]!),
        );
        expect(lhs).toEqual(rhs);
      }
    });
  });

  it('a cover category too large for a dense composition table is refused with a hint', () => {
    expect(() => glueConvolution(values(40 * 40, 1), 40, 40, [1, 1, 1, 1, 1, 1, 1, 1, 1], 3, 3, { ph: 2, pw: 2, hh: 1, hw: 1 })).toThrow(
      /more than 4000: use larger patches or a larger hop/,
    );
  });

  it('the cover category is the poset of patches and overlaps (laws checked by the topos module)', () => {
    const K = coverCategory(
      coverOf(
        ['a', 'b', 'c', 'd'],
        [
          [0, 1],
          [1, 2],
          [2, 3],
          [0, 3],
        ],
      ),
    );
    checkCategory(K.category);
    expect(K.category.objects).toEqual(['U0', 'U1', 'U2', 'U3', 'U0∩U1', 'U0∩U3', 'U1∩U2', 'U2∩U3']);
    expect(K.category.isThin()).toBe(true);
    expect(K.category.hom(K.category.object('U0∩U3'), K.category.object('U3')).length).toBe(1);
  });

  it('a cover naming a point outside a patch is rejected, naming the overlap and the point', () => {
    expect(() =>
      coverCategory({
        points: ['a', 'b', 'c'],
        patches: [
          [0, 1],
          [1, 2],
        ],
        overlaps: [[0, 1, [1, 2]]],
      }),
    ).toThrow(/overlap U0∩U1 contains point c, which is not in patch U0/);
    expect(() => coverCategory({ points: ['a'], patches: [[0, 3]], overlaps: [] })).toThrow(/patch U0 contains point 3/);
  });
});

describe('the link to sheaf gluing', () => {
  const sectionsArb = fc.array(
    fc.record({
      context: fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 4 }),
      value: fc.integer({ min: 0, max: 2 }),
    }),
    { minLength: 1, maxLength: 5 },
  );

  it('one coend class per global point exactly when Topos I glue() succeeds (ε = 0), with the glued values', () => {
    fc.assert(
      fc.property(sectionsArb, (raw) => {
        const sections: Section[] = raw.map((s, i) => ({ name: `s${i}`, context: s.context, prediction: [s.value / 2] }));
        const q = sectionsCoend(sections, 0);
        const g = glue(sections, 0);
        expect(q.onePerPoint).toBe(g.glued);
        const union = new Set(raw.flatMap((s) => s.context));
        expect(q.points.length).toBe(union.size);
        expect(q.classes.length).toBeGreaterThanOrEqual(union.size);
        if (g.glued) {
          // every point's value is the common prediction of the sections over it, i.e. the glued global section
          q.classes.forEach((cls, k) => {
            const over = raw.filter((s) => s.context.includes(cls.point as number));
            expect(q.values![k]![0]).toBeCloseTo(over[0]!.value / 2, 12);
          });
          // Topos I's global section lives over the same points (its value is one mean vector, not per point)
          expect(new Set(g.section.context)).toEqual(new Set(q.points));
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a disagreeing overlap splits its points into one class per section', () => {
    const q = sectionsCoend([
      { name: 'A', context: ['x', 'y'], prediction: 1 },
      { name: 'B', context: ['y', 'z'], prediction: 2 },
    ]);
    expect(q.classes.map((c) => `${c.point}:${c.sections.join('')}`)).toEqual(['x:A', 'y:A', 'y:B', 'z:B']);
    expect(q.onePerPoint).toBe(false);
    expect(
      sectionsCoend(
        [
          { name: 'A', context: ['x', 'y'], prediction: 1 },
          { name: 'B', context: ['y', 'z'], prediction: 1.05 },
        ],
        0.1,
      ).onePerPoint,
    ).toBe(true);
  });
});
