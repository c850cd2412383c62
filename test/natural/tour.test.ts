import { describe, expect, it } from 'vitest';
import { fmt } from '../../src/cli/progress.js';
import { section } from '../../src/cli/tour/natural.js';
import { meanSpread } from '../../src/experiments/natural/distill.js';
import type { DistillReport, Verdict } from '../../src/experiments/natural/distill.js';
import type { Exercise4Result } from '../../src/experiments/natural/bit-flip-naturality.js';
import type { NaturalityReport } from '../../src/natural/naturality.js';
import { quietIO } from '../cli/helpers.js';

interface NaturalData {
  exercise4: Exercise4Result;
  distillation: Record<string, { summary: DistillReport['summary']; runs: DistillReport['runs']; verdicts: Verdict[]; teacher: string; student: string }>;
  hint_naturality: NaturalityReport[];
}

/** Spearman ρ of n values without ties is 1 − 6Σd²/(n(n²−1)); for n = 6 distances Σd² is even, so 35ρ is an odd integer in [−35, 35]. */
function isSpearmanOfSix(rho: number): boolean {
  const k = Math.round(35 * rho);
  return Math.abs(35 * rho - k) < 1e-9 && Math.abs(k) <= 35 && Math.abs(k % 2) === 1;
}

describe('tour section: natural transformations', async () => {
  const out = await section.run({ seed: 0, io: quietIO });
  const text = out.lines.join('\n');
  const d = out.data as NaturalData;

  it('reports exercise 4, distillation and naturality, with summary rows', () => {
    expect(text).toMatch(/Exercise 4/);
    expect(text).toMatch(/Hinton KD/);
    expect(out.summary!.length).toBeGreaterThanOrEqual(3);
    expect(out.figures!.length).toBe(2);
  });

  it('its data is plain JSON: it survives a round trip unchanged (no NaN, undefined, typed arrays or functions)', () => {
    expect(JSON.parse(JSON.stringify(out.data))).toStrictEqual(out.data);
  });

  it('exercise 4: the target P·h is linear in h, so SGD on the convex loss drives the adapter loss to nearly 0', () => {
    const e = d.exercise4;
    expect(e.teacherLoss).toBeLessThan(1e-3); // the XOR teacher is trained
    expect(e.lossBefore).toBeGreaterThan(0.1);
    expect(e.lossAfter).toBeLessThan(1e-3 * e.lossBefore);
    expect(e.steps).toBe(2000);
    expect(text).toContain(`adapter loss ${fmt(e.lossBefore)} before → ${fmt(e.lossAfter)} after 2000 SGD steps`);
    // η(h) ≈ P·h: their pairwise distances rank alike; each ρ is a Spearman coefficient of 6 distances
    expect(e.rankCorrelationTarget).toBeGreaterThan(0.8);
    for (const rho of [e.rankCorrelationTarget, e.rankCorrelationBefore, e.rankCorrelationAfter, e.rankCorrelationTeacherTarget])
      expect(isSpearmanOfSix(rho), String(rho)).toBe(true);
    expect(text).toContain(`η(h) vs target ${fmt(e.rankCorrelationTarget, 3)}`);
  });

  it('exercise 4: naturality holds exactly along the identity and, after learning, within 5% along every arrow; flipping the bits improves most', () => {
    const e = d.exercise4;
    expect(e.naturalityBefore.map((r) => r.arrow)).toEqual(['identity', 'permute(1,0)', 'flip bits', 'noise(0.05)']);
    expect(e.naturalityAfter.map((r) => r.arrow)).toEqual(e.naturalityBefore.map((r) => r.arrow));
    for (const r of [e.naturalityBefore[0]!, e.naturalityAfter[0]!, d.hint_naturality[0]!])
      expect(r).toMatchObject({ arrow: 'identity', defect: 0, relative: 0, residualF: 0, residualG: 0 });
    for (const r of e.naturalityAfter) expect(r.relative).toBeLessThan(0.05);
    const flip = (rs: NaturalityReport[]) => rs.find((r) => r.arrow === 'flip bits')!.defect;
    expect(flip(e.naturalityAfter)).toBeLessThan(flip(e.naturalityBefore) / 50);
    // the actions F(f), G(f) are fitted on the same data before and after: their residuals do not change
    e.naturalityAfter.forEach((r, i) => expect([r.residualF, r.residualG]).toEqual([e.naturalityBefore[i]!.residualF, e.naturalityBefore[i]!.residualG]));
    for (const [i, r] of e.naturalityAfter.entries()) {
      const cells = text
        .split('\n')
        .find((l) => l.startsWith(r.arrow))!
        .trim()
        .split(/\s{2,}/);
      expect(cells).toEqual([r.arrow, fmt(e.naturalityBefore[i]!.defect, 3), fmt(r.defect, 3), fmt(r.relative, 3)]);
    }
  });

  it('distillation: each summary is the mean and sample sd of its 5 runs, and each verdict follows from the paired differences', () => {
    expect(Object.keys(d.distillation)).toEqual(['iris', 'moons']);
    for (const [name, r] of Object.entries(d.distillation)) {
      expect(r.runs.map((x) => x.seed)).toEqual([0, 1, 2, 3, 4]);
      for (const key of ['teacher', 'alone', 'distilled', 'hinted'] as const) {
        const xs = r.runs.map((x) => x[key]);
        for (const a of xs) expect(a).toBeGreaterThanOrEqual(0.85); // held-out accuracy of every variant on every seed
        const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
        const sd = Math.sqrt(xs.reduce((s, v) => s + (v - mean) ** 2, 0) / (xs.length - 1));
        expect(r.summary[key].mean).toBeCloseTo(mean, 12);
        expect(r.summary[key].std).toBeCloseTo(sd, 12);
        expect(r.summary[key]).toEqual(meanSpread(xs));
      }
      for (const v of r.verdicts) {
        const diffs = r.runs.map((x) => x[v.variant] - x.alone);
        const { mean, std } = meanSpread(diffs);
        expect(v.meanDifference).toBeCloseTo(mean, 12);
        expect(v.standardError).toBeCloseTo(std / Math.sqrt(5), 12);
        expect(v.verdict).toBe(mean > 2 * v.standardError ? 'helped' : mean < -2 * v.standardError ? 'hurt' : 'no clear difference');
      }
      const cells = text
        .split('\n')
        .find((l) => l.startsWith(`${name} `))!
        .trim()
        .split(/\s{2,}/);
      const ms = (m: { mean: number; std: number }) => `${fmt(m.mean, 3)} ± ${fmt(m.std, 2)}`;
      expect(cells).toEqual([
        name,
        ms(r.summary.teacher),
        ms(r.summary.alone),
        ms(r.summary.distilled),
        ms(r.summary.hinted),
        `${r.verdicts[0]!.verdict}; ${r.verdicts[1]!.verdict}`,
      ]);
    }
    expect(d.distillation.moons!.summary.teacher).toEqual({ mean: 1, std: 0 }); // moons are separable: the 64-unit teacher makes no mistake
  });
});
