import { describe, expect, it } from 'vitest';
import '../../src/tensor/index.js';
import { fmt } from '../../src/cli/progress.js';
import { section } from '../../src/cli/tour/markov.js';
import type {} from '../../src/markov/index.js';
import type { UncertaintyReport } from '../../src/experiments/markov/index.js';
import { quietIO } from '../cli/helpers.js';

interface MarkovData {
  comonoid_laws: { law: string; agreed: number; n: number; ok: boolean }[];
  copy_naturality: { deterministic: number; coin: number };
  dropout_lens: { x: number[]; y: number[]; dx: number[] };
  exercise2: { loss_25_epoch_mean_at: Record<string, { stochastic: number; deterministic: number }>; eval_loss: { stochastic: number; deterministic: number } };
  bayes_demo: { mean: number; std: number; std_error: number };
  gap_regression: { method: string; near: number; gap: number; beyond: number; away: number; rmseNear: number }[];
  calibration: UncertaintyReport[];
}

/**
 * Mean and standard deviation of σ(Z) for Z ~ N(m, s²), by Simpson's rule on m ± 12s: the
 * exact answer the Monte Carlo estimate of the seed's Bayesian demo estimates.
 */
function sigmoidOfNormal(m: number, s: number): { mean: number; std: number } {
  const n = 20000,
    a = m - 12 * s,
    h = (24 * s) / n;
  let e = 0,
    e2 = 0;
  for (let i = 0; i <= n; i++) {
    const z = a + i * h;
    const w = ((i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * (h / 3) * Math.exp(-(((z - m) / s) ** 2) / 2)) / (s * Math.sqrt(2 * Math.PI));
    const f = 1 / (1 + Math.exp(-z));
    e += w * f;
    e2 += w * f * f;
  }
  return { mean: e, std: Math.sqrt(e2 - e * e) };
}

/** The cells of the table row of `text` whose first cells are `first` (cells are two or more spaces apart). */
function row(text: string, ...first: string[]): string[] {
  const rows = text.split('\n').map((l) => l.trim().split(/\s{2,}/));
  const r = rows.find((cells) => first.every((c, i) => cells[i] === c));
  if (!r) throw new Error(`no row ${first.join(' | ')} in the section`);
  return r.slice(first.length);
}

describe('tour: Markov section', async () => {
  const out = await section.run({ seed: 0, io: quietIO });
  const text = out.lines.join('\n');
  const d = out.data as MarkovData;

  it('prints the dropout lens, exercise 2, the Bayesian demo and the uncertainty summary', () => {
    for (const k of ['dropout(0.5)', 'Exercise 2', 'bayes_dense(2,1) >> sigmoid', 'ECE', 'away / near', 'iris', 'moons']) expect(text).toContain(k);
    expect(out.summary!.length).toBeGreaterThanOrEqual(4);
    expect(out.figures!.length).toBe(3);
  });

  it('copy and discard satisfy the comonoid laws on every sample; copy commutes with a deterministic f always and with a fair coin half the time', () => {
    for (const l of d.comonoid_laws) expect(l).toMatchObject({ agreed: 200, n: 200, ok: true });
    expect(text).toContain('counitL 200/200, counitR 200/200, coassociativity 200/200, cocommutativity 200/200');
    expect(d.copy_naturality.deterministic).toBe(1);
    // Δ∘coin gives (b, b), (coin ⊗ coin)∘Δ two independent flips: they agree with probability 1/2;
    // 2000 draws, standard error √(¼/2000) ≈ 0.011, both sides within 4 of them
    expect(Math.abs(d.copy_naturality.coin - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / 2000));
    expect(text).toContain(`on 100% of draws for deterministic f, ${fmt(d.copy_naturality.coin * 100, 3)}% for a fair coin`);
  });

  it('the dropout lens keeps or zeroes each unit, scales the kept ones by 1/(1−p), and its pullback reuses the mask', () => {
    const { x, y, dx } = d.dropout_lens;
    expect(x).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    y.forEach((v, i) => {
      expect([0, 2 * x[i]!]).toContain(v);
      expect(dx[i]).toBe(v / x[i]!); // dy = 1 passes exactly where the unit was kept, times 1/(1−p)
    });
    expect(y.filter((v) => v === 0).length).toBeGreaterThan(0);
    expect(y.filter((v) => v !== 0).length).toBeGreaterThan(0);
    expect(row(text, 'y = x⊙m/(1−p)').map(Number)).toEqual(y);
    expect(row(text, 'dx for dy = 1').map(Number)).toEqual(dx);
    expect(text).toContain('evaluation mode: dropout(0.5) is the identity → 1 2 3 4 5 6 7 8');
  });

  it('exercise 2: both nets learn XOR; the dropout lens keeps the training loss above the deterministic one, not the evaluation loss', () => {
    const w = d.exercise2.loss_25_epoch_mean_at;
    for (const k of ['stochastic', 'deterministic'] as const) expect(w['3000']![k]).toBeLessThan(w['25']![k] / 5);
    expect(w['3000']!.deterministic).toBeLessThan(0.01);
    // with masks sampled in training the loss stays high (four samples per epoch, p = 0.2)
    expect(w['3000']!.stochastic).toBeGreaterThan(10 * w['3000']!.deterministic);
    // in evaluation mode (no masks) both fit: squared errors below 0.01
    expect(d.exercise2.eval_loss.stochastic).toBeLessThan(0.01);
    expect(d.exercise2.eval_loss.deterministic).toBeLessThan(0.01);
    const epochs = ['25', '100', '500', '1000', '2000', '3000'];
    expect(row(text, 'epoch')).toEqual(epochs);
    expect(row(text, 'with dropout(0.2)')).toEqual(epochs.map((e) => fmt(w[e]!.stochastic)));
    expect(row(text, 'no dropout')).toEqual(epochs.map((e) => fmt(w[e]!.deterministic)));
    expect(text).toContain(`with dropout ${fmt(d.exercise2.eval_loss.stochastic)}, without ${fmt(d.exercise2.eval_loss.deterministic)}`);
  });

  it("the Bayesian demo estimates E[σ(Z)] and sd σ(Z), Z ~ N(0.95, 0.33²), within 3 standard errors — as the seed's 0.7169 and 0.0660 do", () => {
    // the seed's model: μ_W = (0.6, 0.5), μ_b = 0.1, σ = 0.22 on every weight, x = (1, 0.5)
    const m = 0.6 * 1 + 0.5 * 0.5 + 0.1,
      s = 0.22 * Math.sqrt(1 + 0.25 + 1);
    const exact = sigmoidOfNormal(m, s);
    const n = 1000,
      { mean, std, std_error: se } = d.bayes_demo;
    expect(se).toBeCloseTo(std / Math.sqrt(n), 12);
    expect(Math.abs(mean - exact.mean)).toBeLessThan(3 * se);
    // the sample sd of n draws has standard error ≈ sd/√(2(n−1))
    const seStd = exact.std / Math.sqrt(2 * (n - 1));
    expect(Math.abs(std - exact.std)).toBeLessThan(3 * seStd);
    // the seed printed mean 0.7169 and std 0.0660 from its own 1000 draws
    expect(Math.abs(0.7169 - exact.mean)).toBeLessThan((3 * 0.066) / Math.sqrt(n));
    expect(Math.abs(0.066 - exact.std)).toBeLessThan(3 * seStd);
    expect(text).toContain(`mean ${fmt(mean)} ± ${fmt(se, 2)} (s.e.), std ${fmt(std)}`);
  });

  it('both uncertainty methods grow less certain from the data to the gap to beyond it, and fit near the data', () => {
    expect(d.gap_regression.map((g) => g.method)).toEqual(['mc-dropout', 'bayes']);
    for (const g of d.gap_regression) {
      expect(g.near).toBeLessThan(g.gap);
      expect(g.gap).toBeLessThan(g.beyond);
      expect(g.away).toBeGreaterThanOrEqual(2 * g.near);
      expect(g.rmseNear).toBeLessThan(0.15); // the noise is σ = 0.1
      expect(row(text, g.method)).toEqual([fmt(g.near), fmt(g.gap), fmt(g.beyond), fmt(g.away / g.near, 3)]);
    }
  });

  it('held-out calibration: accurate, calibrated classifiers; the MC methods are more uncertain away from the data, the deterministic net not at all', () => {
    expect(d.calibration.map((r) => `${r.data}/${r.method}`)).toEqual(
      ['moons', 'iris'].flatMap((n) => ['deterministic', 'mc-dropout', 'bayes'].map((m) => `${n}/${m}`)),
    );
    for (const r of d.calibration) {
      expect(r.accuracy).toBeGreaterThanOrEqual(0.9);
      expect(r.ece).toBeLessThan(0.1);
      expect(r.ece).toBeGreaterThanOrEqual(0);
      if (r.method === 'deterministic') expect([r.stdIn, r.stdOut]).toEqual([0, 0]);
      else expect(r.stdOut).toBeGreaterThan(3 * r.stdIn);
      expect(row(text, r.data, r.method)).toEqual([r.accuracy, r.nll, r.ece, r.stdIn, r.stdOut].map((v) => fmt(v)));
    }
  });
});
