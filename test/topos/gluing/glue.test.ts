import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError, RangeArgError, ShapeError } from '../../../src/errors.js';
import { agreementMatrix, EXERCISE3_EXPERTS, EXERCISE3_TOLERANCES, glue, gluingTable, gluingThreshold, seedGluingDemo } from '../../../src/topos/index.js';
import type { Section } from '../../../src/topos/index.js';

describe('sheaf gluing', () => {
  it('the seed demo: A and B glue to 0.70, A and C conflict', () => {
    const d = seedGluingDemo(0.1);
    expect(d.agree.glued).toBe(true);
    if (d.agree.glued) {
      expect(d.agree.section.prediction[0]).toBeCloseTo(0.7, 12);
      expect(new Set(d.agree.section.context)).toEqual(new Set(['x1', 'x2', 'x3']));
    }
    expect(d.conflict.glued).toBe(false);
    if (!d.conflict.glued) {
      expect(d.conflict.conflict.names).toEqual(['A', 'C']);
      expect(d.conflict.conflict.distance).toBeCloseTo(0.42, 12);
    }
    expect(d.threshold).toBeCloseTo(0.42, 12);
  });

  it('returns the most disagreeing overlapping pair and counts the conflicts', () => {
    const S: Section[] = [
      { name: 'a', context: [1], prediction: [0.1, 0.9] },
      { name: 'b', context: [1], prediction: [0.3, 0.7] },
      { name: 'c', context: [1], prediction: [0.9, 0.1] },
    ];
    const r = glue(S, 0.25);
    expect(r.glued).toBe(false);
    if (!r.glued) {
      expect([r.conflict.i, r.conflict.j]).toEqual([0, 2]);
      expect(r.conflict.distance).toBeCloseTo(0.8, 12);
      expect(r.conflicts).toBe(2); // a–c and b–c; a–b agree within 0.25
    }
    const ok = glue(S.slice(0, 2), 0.25);
    expect(ok.glued && ok.section.prediction.map((v) => +v.toFixed(12))).toEqual([0.2, 0.8]);
  });

  it('sections over disjoint contexts are never compared (the sheaf condition is on overlaps)', () => {
    const S: Section[] = [
      { context: ['u'], prediction: 0 },
      { context: ['v'], prediction: 1 },
    ];
    expect(glue(S, 0).glued).toBe(true);
    expect(gluingThreshold(S)).toBe(0);
    expect(agreementMatrix(S)).toEqual([
      [0, null],
      [null, 0],
    ]);
  });

  it('agreement at exactly ε counts as agreement despite rounding (0.7 vs 0.8 at ε = 0.1)', () => {
    expect(
      glue(
        [
          { context: [0], prediction: 0.7 },
          { context: [0], prediction: 0.8 },
        ],
        0.1,
      ).glued,
    ).toBe(true);
  });

  it('glues iff the tolerance reaches the gluing threshold (random families)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.subarray([0, 1, 2, 3], { minLength: 1 })), { minLength: 2, maxLength: 7 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (raw, eps) => {
          const S = raw.map(([p, ctx]) => ({ context: ctx, prediction: p }));
          const t = gluingThreshold(S);
          fc.pre(Math.abs(t - eps) > 1e-9);
          expect(glue(S, eps).glued).toBe(t <= eps);
        },
      ),
    );
  });

  it('bad input: negative tolerance, predictions of different lengths, non-finite values', () => {
    const S: Section[] = [
      { name: 'A', context: [0], prediction: [0.5, 0.5] },
      { name: 'B', context: [0], prediction: [1] },
    ];
    expect(() => glue([{ context: [0], prediction: 1 }], -0.1)).toThrow(RangeArgError);
    expect(() => glue([{ context: [0], prediction: 1 }], -0.1)).toThrow(/-0\.1/);
    expect(() => glue(S, 0.1)).toThrow(ShapeError);
    expect(() => glue(S, 0.1)).toThrow(/section B has a prediction of length 1 but section A has length 2/);
    expect(() => glue([{ context: [0], prediction: [Number.NaN] }], 0.1)).toThrow(DataError);
    expect(() => glue([], 0.1)).toThrow(RangeArgError);
  });
});

describe('exercise 3 of seed 000', () => {
  const table = gluingTable(EXERCISE3_EXPERTS, EXERCISE3_TOLERANCES);
  it('more subsets glue as ε grows, and all five glue at 0.5', () => {
    expect(table.map((t) => t.subsets.filter((s) => s.glued).length)).toEqual([3, 6, 26]);
    expect(table.map((t) => t.all.glued)).toEqual([false, false, true]);
    expect(table[2]!.all.section!.prediction[0]).toBeCloseTo((0.7 + 0.74 + 0.4 + 0.62 + 0.88) / 5, 12);
  });
  it('maximal gluing families and the maximum consistent subset', () => {
    expect(table[1]!.maximal).toEqual([
      ['A', 'C'],
      ['A', 'B', 'D'],
      ['B', 'E'],
    ]);
    expect(table[1]!.maximum.names).toEqual(['A', 'B', 'D']);
    expect(table[1]!.maximum.section.prediction[0]).toBeCloseTo((0.7 + 0.74 + 0.62) / 3, 12);
    expect(table[0]!.maximum.names.length).toBe(2);
  });
  it('a subset fails to glue exactly when it contains a conflicting pair', () => {
    for (const t of table) {
      const bad = t.conflicts.map((c) => c.names);
      for (const s of t.subsets) expect(s.glued).toBe(!bad.some(([a, b]) => s.names.includes(a!) && s.names.includes(b!)));
    }
  });
});
