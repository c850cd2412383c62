import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/index.js';
import fc from 'fast-check';
import {
  bernoulliK,
  checkSamples,
  comonoidLaws,
  composeK,
  copyNaturality,
  deterministic,
  discardNaturality,
  estimate,
  expectation,
  kernel,
  normalK,
  thenK,
} from '../../src/markov/index.js';
import { RangeArgError } from '../../src/errors.js';

const vectorSource = (d: number) => kernel<null, number[]>('randn', (_a, rng) => Array.from({ length: d }, () => rng.normal()));

describe('Markov kernels', () => {
  it('copy and discard satisfy the comonoid laws on samples of random kernels', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.integer({ min: 1, max: 5 }), (seed, d) => {
        const reports = comonoidLaws(vectorSource(d), 50, new Rng(seed));
        expect(reports.map((r) => r.law).sort()).toEqual(['coassociativity', 'cocommutativity', 'counitL', 'counitR']);
        return reports.every((r) => r.ok && r.agreed === 50);
      }),
      { numRuns: 30 },
    );
  });

  it('a law check fails when copy is broken (the check can fail)', () => {
    // a source whose "equality" is never satisfied: the check must report disagreement
    const reports = comonoidLaws(vectorSource(2), 10, new Rng(1), () => false);
    expect(reports.every((r) => !r.ok)).toBe(true);
  });

  it('copy commutes with deterministic kernels only (Fritz, Def. 10.1)', () => {
    const double = deterministic<number, number>('double', (x) => 2 * x);
    expect(copyNaturality(double, 3, 500, new Rng(2))).toBe(1);
    const coin = copyNaturality(bernoulliK, 0.5, 4000, new Rng(3));
    expect(Math.abs(coin - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / 4000));
  });

  it('discard is natural for every kernel', () => {
    expect(discardNaturality(normalK, [0, 1] as const, 100, new Rng(4))).toBe(true);
  });

  it('composition samples the Chapman–Kolmogorov composite: N(μ,1) then N(·,1) has mean μ, variance 2', () => {
    const step = kernel<number, number>('step', (m, rng) => normalK.sample([m, 1], rng));
    const two = thenK(step, step);
    const e = expectation(two, 1.5, 20000, new Rng(5));
    expect(Math.abs(e.mean - 1.5)).toBeLessThan(4 * e.stdError);
    expect(e.std).toBeGreaterThan(Math.sqrt(2) * 0.97);
    expect(e.std).toBeLessThan(Math.sqrt(2) * 1.03);
    // associativity holds in distribution: ((f;g);h) and (f;(g;h)) have the same moments
    const a = expectation(thenK(thenK(step, step), step), 0, 20000, new Rng(6));
    const b = expectation(composeK<number>(step, thenK(step, step)), 0, 20000, new Rng(7));
    expect(Math.abs(a.mean - b.mean)).toBeLessThan(4 * Math.hypot(a.stdError, b.stdError));
    expect(Math.abs(a.std - b.std)).toBeLessThan(0.05 * Math.sqrt(3));
  });

  it('Monte Carlo expectation: the true mean lies within a few standard errors, SE = s/√n', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 }),
        fc.double({ min: -5, max: 5, noNaN: true }),
        fc.double({ min: 0.1, max: 3, noNaN: true }),
        (seed, mu, sigma) => {
          const e = expectation(normalK, [mu, sigma] as const, 2000, new Rng(seed));
          expect(e.stdError).toBeCloseTo(e.std / Math.sqrt(2000), 12);
          return Math.abs(e.mean - mu) < 5 * e.stdError;
        },
      ),
      { numRuns: 25 },
    );
  });

  it('estimate is exact on known values', () => {
    const e = estimate([1, 2, 3, 4]);
    expect(e.mean).toBe(2.5);
    expect(e.std).toBeCloseTo(Math.sqrt(5 / 3), 14);
    expect(e.stdError).toBeCloseTo(Math.sqrt(5 / 3) / 2, 14);
  });

  it('bad input throws typed errors, never NaN', () => {
    for (const n of [0, -1, 1.5, NaN]) expect(() => checkSamples(n)).toThrow(RangeArgError);
    expect(() => expectation(normalK, [0, 1] as const, 0, new Rng(0))).toThrow(/samples must be a positive integer/);
    expect(() => normalK.sample([0, 0], new Rng(0))).toThrow(RangeArgError);
    expect(() => normalK.sample([0, -1], new Rng(0))).toThrow(/σ > 0/);
    expect(() => bernoulliK.sample(1.5, new Rng(0))).toThrow(RangeArgError);
  });
});
