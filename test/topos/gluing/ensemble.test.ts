import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { xor } from '../../../src/data/generated.js';
import { iris } from '../../../src/data/registry.js';
import { DataError, RangeArgError } from '../../../src/errors.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { auroc } from '../../../src/topos/index.js';
import { expertProbabilities, heldOutRecords, sheafEnsembleStudy, toleranceRow, trainEnsemble } from '../../../src/experiments/topos/index.js';

describe('auroc', () => {
  it('equals the pairwise definition P(score₊ > score₋) + ½ P(tie)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 5 }), fc.boolean()), { minLength: 2, maxLength: 30 }), (rows) => {
        const s = rows.map((r) => r[0]),
          y = rows.map((r) => r[1]);
        const pos = rows.filter((r) => r[1]),
          neg = rows.filter((r) => !r[1]);
        const a = auroc(s, y);
        if (!pos.length || !neg.length) {
          expect(a).toBeUndefined();
          return;
        }
        let sum = 0;
        for (const p of pos) for (const n of neg) sum += p[0] > n[0] ? 1 : p[0] === n[0] ? 0.5 : 0;
        expect(a).toBeCloseTo(sum / (pos.length * neg.length), 12);
      }),
    );
  });
  it('1 for a perfect score, 0 for a reversed one', () => {
    expect(auroc([0.1, 0.2, 0.8, 0.9], [false, false, true, true])).toBe(1);
    expect(auroc([0.9, 0.8, 0.2, 0.1], [false, false, true, true])).toBe(0);
    expect(() => auroc([1, 2], [true])).toThrow(RangeArgError);
  });
});

describe('a sheaf ensemble on Iris', () => {
  const data = iris();
  it('experts see overlapping feature subsets (their contexts) and output probability vectors', () => {
    const experts = trainEnsemble(data, { experts: 3, epochs: 20, seed: 3 });
    expect(experts.map((e) => e.features.length)).toEqual([3, 3, 3]);
    for (const e of experts) for (const f of e.context) expect(data.featureNames).toContain(f);
    const probs = expertProbabilities(experts, data);
    for (const p of probs) {
      expect(p.length).toBe(150 * 3);
      for (let i = 0; i < 150; i++) expect(p[3 * i]! + p[3 * i + 1]! + p[3 * i + 2]!).toBeCloseTo(1, 9);
    }
    expect(experts.map((e) => e.trainAccuracy!).every((a) => a > 0.6)).toBe(true);
  });

  it('records: glued + non-glued = held-out rows, and gluing grows with ε', () => {
    const experts = trainEnsemble(data, { experts: 4, epochs: 30, seed: 1 });
    const { records, agreement } = heldOutRecords(experts, data, 0.2);
    expect(records.length).toBe(150);
    expect(agreement.length).toBe(4);
    expect(agreement[0]![0]).toBe(0);
    let last = -1;
    for (const t of [0, 0.05, 0.1, 0.3, 1]) {
      const row = toleranceRow(records, t);
      expect(row.glued + row.notGlued).toBe(150);
      expect(row.glued).toBeGreaterThanOrEqual(last);
      last = row.glued;
    }
    expect(toleranceRow(records, 1).notGlued).toBe(0); // probability vectors never differ by more than 1
  });

  it('the study: gluing failure flags errors (seeded, measured)', () => {
    const r = sheafEnsembleStudy(data, { experts: 5, tolerance: 0.2, splits: 2, epochs: 60, seed: 0 });
    expect(r.heldOut).toBe(60);
    expect(r.atTolerance.glued + r.atTolerance.notGlued).toBe(60);
    expect(r.expertAccuracy.length).toBe(5);
    expect(r.ensembleAccuracy).toBeGreaterThan(0.8);
    // measured with this seed: 5 wrong answers, error 0 on 47 glued rows vs 0.38 on 13 non-glued, AUROC 0.96
    expect(r.wrong).toBeGreaterThan(0);
    expect(r.atTolerance.errorNotGlued!).toBeGreaterThan(r.atTolerance.errorGlued!);
    expect(r.auroc!).toBeGreaterThan(0.8);
  });

  it('bad input: fewer than two experts, unlabelled data, too many features, negative tolerance', () => {
    expect(() => trainEnsemble(data, { experts: 1 })).toThrow(RangeArgError);
    const regression = { name: 'r', x: Tensor.zeros([4, 2]), y: Tensor.zeros([4, 1]) };
    expect(() => trainEnsemble(regression, { experts: 2 })).toThrow(DataError);
    expect(() => trainEnsemble(data, { experts: 2, features: 5 })).toThrow(/features per expert must be an integer in \[1, 4\]/);
    expect(() => sheafEnsembleStudy(xor(), { experts: 2, tolerance: -0.5 })).toThrow(/-0\.5/);
    expect(() => sheafEnsembleStudy(xor(), { experts: 2, tolerance: 0.1, splits: 1 })).toThrow(/xor: the held-out set is empty/);
  });
});
