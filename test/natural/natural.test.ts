import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dense, elementwise, gradcheck, parseSpec, seq, Tensor, Rng, ShapeError, RangeArgError, softmaxCrossEntropy } from '../../src/index.js';
import {
  adapter,
  checkAdapter,
  distillationLoss,
  distillationTarget,
  exercise4,
  gaussianNoise,
  identity,
  naturalityDefect,
  permuteFeatures,
  representationFunctor,
  rotate2d,
  scale,
} from '../../src/api/natural.js';
import { spearman, ranks, fitAffine, applyAffine } from '../../src/linalg/index.js';
import type { Loss } from '../../src/index.js';

const randn = (shape: number[], rng: Rng): Tensor => {
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
};

/** Float64 central-difference check of a loss lens's pullback in a random direction. */
function lossGradcheck(loss: Loss, yhat: Tensor, target: Tensor, seed: number): { rel: number; analytic: number } {
  const rng = new Rng(seed);
  const v = randn(yhat.shape, rng);
  const g = loss.apply(yhat, target).pullback(1.7);
  let analytic = 0;
  for (let i = 0; i < v.size; i++) analytic += g.data[i]! * v.data[i]!;
  const at = (h: number): number => {
    const y = yhat.clone();
    for (let i = 0; i < y.size; i++) y.data[i]! += h * v.data[i]!;
    return 1.7 * loss.apply(y, target).value;
  };
  const eps = 1e-6;
  const numeric = (at(eps) - at(-eps)) / (2 * eps);
  return { rel: Math.abs(analytic - numeric) / Math.max(1e-12, Math.abs(analytic) + Math.abs(numeric)), analytic };
}

function softLabels(B: number, C: number, rng: Rng, oneHot: boolean): Tensor {
  const y = Tensor.zeros([B, C], 'float64');
  for (let b = 0; b < B; b++) {
    if (oneHot) y.data[b * C + rng.int(C)] = 1;
    else {
      let s = 0;
      for (let j = 0; j < C; j++) s += y.data[b * C + j] = rng.uniform();
      for (let j = 0; j < C; j++) y.data[b * C + j]! /= s;
    }
  }
  return y;
}

describe('the distillation loss lens (Hinton et al. 2015)', () => {
  it('passes float64 gradient checks for random T, α, labels and logits', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.3, max: 8, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 2, max: 5 }),
        fc.nat(1e6),
        fc.boolean(),
        (T, alpha, C, seed, hard) => {
          const rng = new Rng(seed);
          const s = randn([4, C], rng),
            t = randn([4, C], rng);
          const r = lossGradcheck(distillationLoss(T, alpha), s, distillationTarget(softLabels(4, C, rng, hard), t), seed);
          expect(r.rel).toBeLessThan(1e-6);
        },
      ),
      { numRuns: 60 },
    );
  });
  it('is the cross-entropy at α = 0 and T²·KL at α = 1 (zero when the student equals the teacher)', () => {
    const rng = new Rng(3);
    const s = randn([5, 3], rng),
      y = softLabels(5, 3, rng, true);
    const target = distillationTarget(y, randn([5, 3], rng));
    expect(distillationLoss(2, 0).apply(s, target).value).toBeCloseTo(softmaxCrossEntropy.apply(s, y).value, 12);
    const self = distillationTarget(y, s);
    expect(distillationLoss(3, 1).apply(s, self).value).toBeCloseTo(0, 12);
    expect(Math.max(...Array.from(distillationLoss(3, 1).apply(s, self).pullback().data, Math.abs))).toBeLessThan(1e-12);
    expect(distillationLoss(3, 1).apply(s, target).value).toBeGreaterThan(0);
  });
  it('the soft term scales like T² · KL', () => {
    const rng = new Rng(4);
    const s = randn([3, 4], rng),
      t = randn([3, 4], rng),
      y = softLabels(3, 4, rng, true);
    const tgt = distillationTarget(y, t);
    // at T = 1 the soft term is exactly KL(softmax t ‖ softmax s)
    let kl = 0;
    for (let b = 0; b < 3; b++) {
      const sm = (v: Tensor) => {
        const e = Array.from(v.data.subarray(b * 4, b * 4 + 4), Math.exp);
        const z = e.reduce((a, c) => a + c);
        return e.map((x) => x / z);
      };
      const p = sm(t),
        q = sm(s);
      for (let j = 0; j < 4; j++) kl += (p[j]! * Math.log(p[j]! / q[j]!)) / 3;
    }
    expect(distillationLoss(1, 1).apply(s, tgt).value).toBeCloseTo(kl, 10);
  });
  it('rejects T ≤ 0, α ∉ [0,1] and mismatched shapes with typed errors', () => {
    expect(() => distillationLoss(0, 0.5)).toThrow(RangeArgError);
    expect(() => distillationLoss(-1, 0.5)).toThrow(/temperature must be > 0/);
    expect(() => distillationLoss(2, 1.5)).toThrow(/alpha must be in \[0, 1\]/);
    expect(() => distillationTarget(Tensor.zeros([2, 3]), Tensor.zeros([2, 2]))).toThrow(ShapeError);
    expect(() => distillationLoss(2, 0.5).apply(Tensor.zeros([2, 3]), Tensor.zeros([2, 3]))).toThrow(/need a target \[2,6\]/);
  });
});

describe('adapter(p,q), the component of a natural transformation', () => {
  it('passes float64 gradient checks, alone and composed', () => {
    for (const seed of [1, 2, 3]) {
      expect(gradcheck(adapter(4, 2), { seed }).ok).toBe(true);
      expect(gradcheck(seq(dense(3, 4), elementwise('tanh'), adapter(4, 2)), { seed }).ok).toBe(true);
    }
  });
  it('prints and parses back', () => {
    expect(String(parseSpec('dense(2,4) >> relu >> adapter(4,2)'))).toBe('dense(2,4) >> relu >> adapter(4,2)');
  });
  it('a mismatched adapter is a ShapeError naming both shapes', () => {
    expect(() => checkAdapter(adapter(4, 2), 8, 2)).toThrow(/adapter\(4,2\) maps \[\*,4\] → \[\*,2\] but the features need \[\*,8\] → \[\*,2\]/);
    expect(() => checkAdapter(adapter(4, 2), 4, 3)).toThrow(ShapeError);
  });
});

describe('naturality defect', () => {
  // F: linear features A·x (A invertible), G = M·F; arrows linear: F(f) = A R A⁻¹ and G(f) = M A R A⁻¹ M⁻¹ are exact affine actions
  const rng = new Rng(5);
  const x = randn([40, 3], rng);
  const A = randn([3, 3], rng),
    M = randn([3, 3], rng);
  const featA = adapter(3, 3);
  const F = representationFunctor('F', featA, [A]);
  const G = representationFunctor('G', seq(featA, adapter(3, 3)), [A, M]);
  const arrows = [identity, permuteFeatures([2, 0, 1]), scale(-0.5), rotate2d(0.7)];
  it('is zero (to rounding) for η that commutes by construction, for every arrow', () => {
    const r = naturalityDefect(adapter(3, 3), [M], F, G, arrows, x);
    expect(r.map((q) => q.arrow)).toEqual(['identity', 'permute(2,0,1)', 'scale(-0.5)', 'rotate(0.7)']);
    for (const q of r) {
      expect(q.relative).toBeLessThan(1e-6);
      expect(q.residualF).toBeLessThan(1e-6);
    }
  });
  it('is positive for an η that does not commute', () => {
    const r = naturalityDefect(adapter(3, 3), [randn([3, 3], new Rng(9))], F, G, arrows, x);
    expect(r[0]!.relative).toBeLessThan(1e-6); // every η commutes with the identity arrow
    expect(r[1]!.relative).toBeGreaterThan(1e-2); // permutation
    expect(r[3]!.relative).toBeGreaterThan(1e-2); // rotation
    // x ↦ −x/2 acts on linear features as the scalar −1/2, which commutes with every linear η
    expect(r[2]!.relative).toBeLessThan(1e-4);
  });
  it('property: for random invertible linear F, G = M·F and random linear arrows the square commutes exactly for η = M', () => {
    fc.assert(
      fc.property(fc.nat(1e6), (seed) => {
        const g = new Rng(seed);
        const xs = randn([30, 2], g);
        // well-conditioned invertible maps: a rotation times a diagonal with entries in [0.5, 2]
        const inv = (): Tensor => {
          const t = 6 * g.uniform(),
            a = 0.5 + 1.5 * g.uniform(),
            b = 0.5 + 1.5 * g.uniform();
          return Tensor.of([Math.cos(t) * a, -Math.sin(t) * b, Math.sin(t) * a, Math.cos(t) * b], [2, 2], 'float64');
        };
        const A2 = inv(),
          M2 = inv(),
          wrong = randn([2, 2], g);
        const F2 = representationFunctor('F', adapter(2, 2), [A2]);
        const G2 = representationFunctor('G', seq(adapter(2, 2), adapter(2, 2)), [A2, M2]);
        const fs = [rotate2d(g.uniform() * 6), scale(0.5 + g.uniform())];
        for (const q of naturalityDefect(adapter(2, 2), [M2], F2, G2, fs, xs)) expect(q.relative).toBeLessThan(1e-5);
        const bad = naturalityDefect(adapter(2, 2), [wrong], F2, G2, [rotate2d(1 + g.uniform())], xs)[0]!;
        expect(bad.defect).toBeGreaterThan(0);
      }),
      { numRuns: 25 },
    );
  });
  it('noise is an arrow whose induced action is only approximately affine for a nonlinear h', () => {
    const h = seq(dense(3, 6), elementwise('tanh'));
    const th = h.init(2, 'float64');
    const Fn = representationFunctor('tanh net', h, th);
    const r = Fn.action(gaussianNoise(0.3, 1), x);
    expect(r.residual).toBeGreaterThan(1e-3);
  });
  it('an adapter of the wrong shape is rejected naming both shapes', () => {
    expect(() => naturalityDefect(adapter(2, 3), [Tensor.zeros([3, 2], 'float64')], F, G, arrows, x)).toThrow(
      /adapter\(2,3\) maps \[\*,2\] → \[\*,3\] but the features need \[\*,3\] → \[\*,3\]/,
    );
  });
});

describe('linear algebra and rank statistics', () => {
  it('fitAffine recovers an exact affine map', () => {
    const g = new Rng(1);
    const H = randn([20, 3], g),
      W = randn([2, 3], g);
    const map = { W: Float64Array.from(W.data), b: Float64Array.from([0.5, -1]), p: 3, q: 2 };
    const fit = fitAffine(H.data, applyAffine(map, H.data, 20), 20, 3, 2);
    fit.W.forEach((v, i) => expect(v).toBeCloseTo(map.W[i]!, 6));
    fit.b.forEach((v, i) => expect(v).toBeCloseTo(map.b[i]!, 6));
  });
  it('spearman: 1 for monotone, −1 for reversed, ties share ranks', () => {
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 400])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    expect(ranks([5, 1, 5, 2])).toEqual([3.5, 1, 3.5, 2]);
  });
});

describe('exercise 4 of seed 000: a learned adapter', () => {
  const r = exercise4({ seed: 0 });
  it('gradient descent through the pullback drives the loss down', () => {
    expect(r.lossAfter).toBeLessThan(r.lossBefore / 1000);
    expect(r.teacherLoss).toBeLessThan(0.01);
  });
  it('the learned η inherits the target space pairwise structure and commutes far better after training', () => {
    expect(r.rankCorrelationTarget).toBeGreaterThan(0.8);
    const flip = (rs: typeof r.naturalityAfter) => rs.find((q) => q.arrow === 'flip bits')!.defect;
    expect(flip(r.naturalityAfter)).toBeLessThan(flip(r.naturalityBefore) / 10);
    expect(r.naturalityAfter.find((q) => q.arrow === 'identity')!.defect).toBeLessThan(1e-6);
  });
  it('is reproducible', () => {
    const again = exercise4({ seed: 0 });
    expect(again.adapterWeight).toEqual(r.adapterWeight);
    expect(again.lossAfter).toBe(r.lossAfter);
  });
});
