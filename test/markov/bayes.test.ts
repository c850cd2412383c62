import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/index.js';
import fc from 'fast-check';
import { gaussianKl, gaussianParams, mcPredict, gapRegression } from '../../src/markov/index.js';
import { bayesDemo, trainElbo } from '../../src/experiments/markov/index.js';
import { bayesDense, softplusInverse, softplusValue } from '../../src/nn/index.js';
import { gradcheck, makeCtx } from '../../src/para/index.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { mse, softmaxCrossEntropy } from '../../src/nn/index.js';
import { Tensor } from '../../src/tensor/index.js';
import { RangeArgError } from '../../src/errors.js';
import { iris } from '../../src/data/index.js';

describe('bayes_dense: a dense layer with Gaussian weights', () => {
  it('gradchecks with a fixed noise draw (training mode) and at the means (evaluation mode)', () => {
    for (const seed of [1, 2, 3]) {
      expect(gradcheck(bayesDense(3, 4, 0.3), { training: true, seed }).ok).toBe(true);
      expect(gradcheck(bayesDense(3, 4, 0.3), { training: false, seed }).ok).toBe(true);
      expect(gradcheck(parseSpec('bayes_dense(2,5,0.2) >> tanh >> bayes_dense(5,2,0.2)'), { training: true, seed }).ok).toBe(true);
    }
  });

  it('the pullback reaches ρ through the sample: dρ = dW ⊙ ε ⊙ logistic(ρ)', () => {
    const f = bayesDense(2, 1, 0.5);
    const theta = f.init(0, 'float64');
    const x = Tensor.of([1, 2], [1, 2], 'float64');
    const lens = f.forward(theta, x, makeCtx({ training: true, rng: new Rng(3) }));
    const d = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
    lens.pullback(Tensor.of([1], [1, 1], 'float64'), d);
    // recover ε from the sampled output: y = Σ (μ + σε)x + (μ_b + σ_b ε_b); check dρ against finite differences per coordinate
    for (const k of [1, 3]) {
      for (let i = 0; i < theta[k]!.size; i++) {
        const at = (h: number): number => {
          const th = theta.map((t) => t.clone());
          th[k]!.data[i]! += h;
          return f.forward(th, x, makeCtx({ training: true, rng: new Rng(3) })).y.data[0]!;
        };
        const numeric = (at(1e-6) - at(-1e-6)) / 2e-6;
        expect(d[k]!.data[i]).toBeCloseTo(numeric, 6);
        expect(Math.abs(d[k]!.data[i]!)).toBeGreaterThan(0);
      }
    }
  });

  it('evaluation mode is the mean network; training mode samples', () => {
    const f = bayesDense(3, 2, 0.5);
    const theta = f.init(1);
    const x = Tensor.of([1, -1, 0.5], [1, 3]);
    const det = parseSpec('dense(3,2)').run([theta[0]!, theta[2]!], x);
    expect(Array.from(f.run(theta, x).data)).toEqual(Array.from(det.data));
    const a = f.forward(theta, x, makeCtx({ training: true, rng: new Rng(1) })).y;
    const b = f.forward(theta, x, makeCtx({ training: true, rng: new Rng(2) })).y;
    expect(Array.from(a.data)).not.toEqual(Array.from(b.data));
  });

  it('prints as its spec and parses back; bad σ and sizes are typed errors', () => {
    expect(String(parseSpec('bayes_dense(4,8) >> relu >> bayes_dense(8,3,0.1)'))).toBe('bayes_dense(4,8) >> relu >> bayes_dense(8,3,0.1)');
    expect(() => bayesDense(2, 2, 0)).toThrow(RangeArgError);
    expect(() => bayesDense(2, 2, -1)).toThrow(/initial σ must be > 0/);
    expect(() => parseSpec('bayes_dense(2,2,0)')).toThrow(RangeArgError);
    expect(() => bayesDense(0, 2)).toThrow(RangeArgError);
    expect(() => softplusInverse(0)).toThrow(RangeArgError);
  });

  it('softplus and its inverse round-trip', () => {
    fc.assert(fc.property(fc.double({ min: 1e-3, max: 50, noNaN: true }), (s) => Math.abs(softplusValue(softplusInverse(s)) - s) < 1e-9 * Math.max(1, s)));
  });
});

describe('KL to the Gaussian prior', () => {
  it('is zero when q equals the prior and positive otherwise', () => {
    const f = bayesDense(2, 2, 1);
    const theta = f.init(0, 'float64');
    theta[0]!.data.fill(0);
    theta[2]!.data.fill(0);
    const g = gaussianParams(f);
    expect(g.map((p) => p.name)).toEqual(['weight', 'bias']);
    expect(gaussianKl(theta, g, 1)).toBeCloseTo(0, 12);
    expect(gaussianKl(theta, g, 2)).toBeGreaterThan(0);
  });

  it('its gradient matches finite differences on random posteriors', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.double({ min: 0.2, max: 3, noNaN: true }), (seed, s) => {
        const m = parseSpec('bayes_dense(3,2) >> tanh >> bayes_dense(2,1)');
        const rng = new Rng(seed);
        const theta = m.init(rng, 'float64').map((t) => {
          for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
          return t;
        });
        const g = gaussianParams(m);
        expect(g).toHaveLength(4);
        const grads = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
        gaussianKl(theta, g, s, grads, 0.7);
        const v = theta.map((t) =>
          Tensor.of(
            Array.from({ length: t.size }, () => rng.normal()),
            t.shape,
            'float64',
          ),
        );
        const at = (h: number): number =>
          gaussianKl(
            theta.map((t, k) =>
              Tensor.of(
                Array.from(t.data, (x, i) => x + h * v[k]!.data[i]!),
                t.shape,
                'float64',
              ),
            ),
            g,
            s,
          );
        const numeric = (0.7 * (at(1e-6) - at(-1e-6))) / 2e-6;
        const analytic = grads.reduce((acc, d, k) => acc + d.data.reduce((a, x, i) => a + x * v[k]!.data[i]!, 0), 0);
        return Math.abs(analytic - numeric) <= 1e-5 * (Math.abs(analytic) + Math.abs(numeric) + 1e-8);
      }),
      { numRuns: 20 },
    );
  });

  it('a prior scale ≤ 0 is a typed error', () => {
    const m = bayesDense(2, 1);
    expect(() => gaussianKl(m.init(0), gaussianParams(m), 0)).toThrow(/priorSigma must be > 0/);
    const data = gapRegression(10, 0.1, 0);
    expect(() => trainElbo(parseSpec('bayes_dense(1,1)'), data, { loss: mse, epochs: 1, priorSigma: -1 })).toThrow(RangeArgError);
  });
});

describe('Bayes by backprop and Monte Carlo prediction', () => {
  it('reproduces the seed demo: mean near 0.72, std near 0.07', () => {
    const d = bayesDemo(2000, 0);
    expect(d.mean).toBeGreaterThan(0.69);
    expect(d.mean).toBeLessThan(0.74);
    expect(d.std).toBeGreaterThan(0.045);
    expect(d.std).toBeLessThan(0.08);
    expect(d.stdError).toBeCloseTo(d.std / Math.sqrt(2000), 12);
  });

  it('the ELBO decreases and the network learns Iris', () => {
    const data = iris();
    const m = parseSpec('bayes_dense(4,16) >> relu >> bayes_dense(16,3)');
    const r = trainElbo(m, data, { loss: softmaxCrossEntropy, epochs: 60, lr: 0.02, batch: 16, seed: 1, klWeight: 0.1 });
    expect(r.history[59]!.loss).toBeLessThan(r.history[0]!.loss * 0.5);
    expect(r.history.every((e) => Number.isFinite(e.kl) && e.kl > 0)).toBe(true);
    const p = mcPredict(r.model, r.theta, data.x, { samples: 20, rng: 1, link: 'softmax' });
    let ok = 0;
    for (let i = 0; i < 150; i++) {
      const row = Array.from(p.mean.data.subarray(3 * i, 3 * i + 3));
      if (row.indexOf(Math.max(...row)) === data.labels![i]) ok++;
    }
    expect(ok / 150).toBeGreaterThan(0.85);
  });

  it('same seed → bit-identical training and predictions', () => {
    const data = gapRegression(30, 0.1, 2);
    const run = () => {
      const r = trainElbo(parseSpec('bayes_dense(1,8) >> relu >> bayes_dense(8,1)'), data, { loss: mse, epochs: 20, batch: 10, seed: 5, noiseSigma: 0.1 });
      return mcPredict(r.model, r.theta, data.x, { samples: 10, rng: 7 });
    };
    const a = run(),
      b = run();
    expect(Array.from(a.mean.data)).toEqual(Array.from(b.mean.data));
    expect(Array.from(a.std.data)).toEqual(Array.from(b.std.data));
  });

  it('mcPredict rejects non-positive sample counts', () => {
    const m = bayesDense(1, 1);
    for (const n of [0, -3, 2.5]) expect(() => mcPredict(m, m.init(0), Tensor.of([1], [1, 1]), { samples: n, rng: 0 })).toThrow(RangeArgError);
  });
});
