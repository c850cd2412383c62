import { describe, expect, it } from 'vitest';
import { awayFromData } from '../../src/markov/index.js';
import { exercise2, gapReport, uncertaintyReport } from '../../src/experiments/markov/index.js';
import { builtInData, moons } from '../../src/data/index.js';
import { Tensor } from '../../src/tensor/index.js';

describe('uncertainty that means something', () => {
  for (const method of ['mc-dropout', 'bayes'] as const) {
    it(`${method}: 1-D regression with a gap — std away from the data ≥ 2× std near it`, () => {
      for (const seed of [0, 1]) {
        const g = gapReport(method, { seed, samples: 100 });
        expect(g.rmseNear).toBeLessThan(0.15); // it fits the data
        expect(g.away).toBeGreaterThanOrEqual(2 * g.near);
        expect(g.beyond).toBeGreaterThanOrEqual(2 * g.near);
        expect(g.gap).toBeGreaterThan(g.near);
      }
    });

    it(`${method}: two moons — std away from the data ≥ 2× std on held-out rows`, () => {
      for (const seed of [0, 1]) {
        const r = uncertaintyReport(builtInData('moons', seed), method, { seed, samples: 100 });
        expect(r.accuracy).toBeGreaterThan(0.95);
        expect(r.stdOut).toBeGreaterThanOrEqual(2 * r.stdIn);
      }
    });
  }

  it('reports accuracy, NLL and ECE on Iris for every method; deterministic has zero std', () => {
    for (const method of ['deterministic', 'mc-dropout', 'bayes'] as const) {
      const r = uncertaintyReport(builtInData('iris', 0), method, { seed: 0, samples: 50 });
      expect(r.testRows).toBe(45);
      expect(r.accuracy).toBeGreaterThan(0.85);
      expect(r.nll).toBeGreaterThan(0);
      expect(r.ece).toBeGreaterThanOrEqual(0);
      expect(r.ece).toBeLessThan(0.2);
      if (method === 'deterministic') expect(r.stdIn + r.stdOut).toBe(0);
      else expect(r.stdIn).toBeGreaterThan(0);
    }
  });

  it('same seed → bit-identical reports', () => {
    const a = uncertaintyReport(moons(100, 0.2, 3), 'mc-dropout', { seed: 3, samples: 20, epochs: 50 });
    const b = uncertaintyReport(moons(100, 0.2, 3), 'mc-dropout', { seed: 3, samples: 20, epochs: 50 });
    expect({ ...a, seconds: 0 }).toEqual({ ...b, seconds: 0 });
  });

  it('awayFromData keeps only points at distance ≥ minDist from every training input', () => {
    const x = Tensor.from([
      [0, 0],
      [1, 0],
      [0, 1],
    ]);
    const a = awayFromData(x, 50, 1, { minDist: 0.5, widen: 1 });
    expect(a.batch).toBe(50);
    for (let i = 0; i < 50; i++) {
      for (let j = 0; j < 3; j++) expect(Math.hypot(a.data[2 * i]! - x.data[2 * j]!, a.data[2 * i + 1]! - x.data[2 * j + 1]!)).toBeGreaterThanOrEqual(0.5);
    }
  });
});

describe('exercise 2: dense >> dropout >> dense on XOR', () => {
  it('both versions learn XOR; the stochastic curve is noisier', () => {
    const r = exercise2({ p: 0.2, epochs: 2000, seed: 0 });
    expect(r.stochastic).toHaveLength(2000);
    expect(r.evalLoss.deterministic).toBeLessThan(0.01);
    expect(r.evalLoss.stochastic).toBeLessThan(0.05);
    const roughness = (c: number[]) => c.slice(1001).reduce((s, v, i) => s + Math.abs(v - c[1000 + i]!), 0);
    expect(roughness(r.stochastic)).toBeGreaterThan(5 * roughness(r.deterministic));
    // the stochastic network trains a random subnetwork each step: its training loss stays well above the deterministic one
    const tail = (c: number[]) => c.slice(1500).reduce((a, v) => a + v, 0) / 500;
    expect(tail(r.stochastic)).toBeGreaterThan(5 * tail(r.deterministic));
    expect(r.stochasticSpec).toContain('dropout(0.2)');
    expect(r.deterministicSpec).not.toContain('dropout');
  });
});
