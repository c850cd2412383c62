import { describe, expect, it } from 'vitest';
import { reparameterisationDemo } from '../../src/experiments/equivariant/fibration.js';
import { linearReparam } from '../../src/para/param-maps.js';
import { dampedSolve } from '../../src/linalg/cholesky.js';
import { gaussNewtonFisher, NaturalGradient, outputFisher } from '../../src/optim/natural-gradient.js';
import { KFAC, kfacModel } from '../../src/optim/kfac.js';
import { optimizer } from '../../src/optim/by-name.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { gradcheck } from '../../src/para/gradcheck.js';
import { bce, mse, softmaxCrossEntropy } from '../../src/nn/loss.js';
import { Trainer } from '../../src/train/trainer.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { Rng } from '../../src/random/rng.js';
import { eye } from '../../src/linalg/matrix.js';

describe('natural gradient: reparameterisation invariance (seed 001, fibrations)', () => {
  const demo = reparameterisationDemo(0);
  it('linear θ = Mφ: the natural step changes the function identically; plain GD does not', () => {
    expect(demo.linear.natural).toBeLessThan(1e-10);
    expect(demo.linear.gradientDescent).toBeGreaterThan(1e-3);
  });
  it('nonlinear θ = φ + ½φ³: the difference shrinks like η²', () => {
    const d = demo.nonlinear;
    for (let k = 1; k < d.length; k++) {
      const ratio = d[k - 1]!.natural / d[k]!.natural;
      expect(ratio).toBeGreaterThan(3);
      expect(ratio).toBeLessThan(5.5);
      // plain gradient descent differs at first order: halving η only halves its difference
      expect(d[k - 1]!.gradientDescent / d[k]!.gradientDescent).toBeLessThan(2.6);
    }
  });
  it('the reparameterised model gradchecks', () => {
    const f = parseSpec('dense(2,3) >> tanh >> dense(3,1)');
    const M = eye(13);
    M.data[1] = 0.5;
    expect(gradcheck(linearReparam(f, M)).ok).toBe(true);
  });
});

describe('natural gradient with the Fisher of the output distribution (bce: Bernoulli, softmax: categorical)', () => {
  const rng = new Rng(3);
  const N = 40,
    d = 3;
  const x = Tensor.zeros([N, d], 'float64');
  for (let i = 0; i < x.size; i++) x.data[i] = rng.normal();
  const feats = (i: number): number[] => [...x.data.subarray(i * d, (i + 1) * d), 1]; // ã = [x, 1]
  const flatGrad = (f: ReturnType<typeof parseSpec>, th: Tensor[], y: Tensor, loss: typeof bce): Float64Array => {
    const lens = f.forward(th, x, { training: false, rng, alloc: (s, dt) => Tensor.zeros(s, dt) });
    const g = th.map((t) => Tensor.zeros(t.shape, 'float64'));
    lens.pullback(loss.apply(lens.y, y).pullback(), g, false);
    return Float64Array.from(g.flatMap((t) => [...t.data]));
  };

  it('logistic regression: F is the Bernoulli Fisher XᵀΛX/N = the Hessian, so one natural step with η = 1 is a Newton step', () => {
    const f = parseSpec('dense(3,1)');
    const th = f.init(1, 'float64');
    const y = Tensor.zeros([N, 1], 'float64');
    for (let i = 0; i < N; i++) y.data[i] = rng.uniform() < 0.5 ? 1 : 0;
    const F = outputFisher(f, th, x, bce);
    // the Hessian of the mean bce loss of a linear model: (1/N) Σ p(1−p) ã ãᵀ (W then b, as the parameters are laid out)
    const z = f.run(th, x).data;
    const H = new Float64Array(16);
    for (let i = 0; i < N; i++) {
      const p = 1 / (1 + Math.exp(-z[i]!)),
        a = feats(i);
      for (let r = 0; r < 4; r++) for (let c = 0; c < 4; c++) H[r * 4 + c]! += (p * (1 - p) * a[r]! * a[c]!) / N;
    }
    for (let k = 0; k < 16; k++) expect(F[k]).toBeCloseTo(H[k]!, 12);
    // the Gauss–Newton (Gaussian) Fisher is a different matrix here
    expect(Math.abs(gaussNewtonFisher(f, th, x)[0]! - H[0]!)).toBeGreaterThan(0.1);
    // one step through the Trainer (which hands the optimiser the loss) is θ − H⁻¹g
    const g = flatGrad(f, th, y, bce);
    const newton = dampedSolve(H, 4, g, 0);
    const t = new Trainer(
      f,
      { name: 'logistic', x, y },
      { loss: bce, optimizer: new NaturalGradient({ lr: 1, damping: 1e-12 }), batch: N, shuffle: false, theta: th.map((u) => u.clone()) },
    );
    t.runEpoch();
    const after = t.theta.flatMap((u) => [...u.data]);
    const before = th.flatMap((u) => [...u.data]);
    after.forEach((v, k) => expect(v).toBeCloseTo(before[k]! - newton[k]!, 8));
  });

  it('softmax regression: F = (1/N) Σ (diag p − ppᵀ) ⊗ ããᵀ, the categorical Fisher', () => {
    const K = 3;
    const f = parseSpec('dense(3,3)');
    const th = f.init(2, 'float64');
    const F = outputFisher(f, th, x, softmaxCrossEntropy);
    const P = K * d + K;
    const z = f.run(th, x).data;
    // parameter index of W[k][j] is k·d + j, of b[k] is K·d + k
    const idx = (k: number, j: number): number => (j < d ? k * d + j : K * d + k);
    const want = new Float64Array(P * P);
    for (let i = 0; i < N; i++) {
      const zi = z.subarray(i * K, (i + 1) * K),
        m = Math.max(...zi);
      const e = Array.from(zi, (v) => Math.exp(v - m)),
        s = e.reduce((a, b) => a + b, 0),
        p = e.map((v) => v / s);
      const a = feats(i);
      for (let k = 0; k < K; k++)
        for (let l = 0; l < K; l++)
          for (let j = 0; j <= d; j++)
            for (let c = 0; c <= d; c++) {
              want[idx(k, j) * P + idx(l, c)]! += (((k === l ? p[k]! : 0) - p[k]! * p[l]!) * a[j]! * a[c]!) / N;
            }
    }
    for (let k = 0; k < P * P; k++) expect(F[k]).toBeCloseTo(want[k]!, 12);
  });

  it('reparameterisation invariance with cross-entropy models (θ = Mφ): the natural step changes the predicted distribution identically', () => {
    const oneHot = (z: Tensor): Tensor => {
      const K = z.size / z.batch,
        t = Tensor.zeros(z.shape, 'float64');
      for (let i = 0; i < z.batch; i++) {
        let best = 0;
        for (let k = 1; k < K; k++) if (z.data[i * K + k]! > z.data[i * K + best]!) best = k;
        t.data[i * K + best] = 1;
      }
      return t;
    };
    const probs = (z: Tensor): Tensor => parseSpec('softmax').run([], z);
    const ce = reparameterisationDemo(4, [0.1], 'dense(3,3)', { loss: softmaxCrossEntropy, targets: oneHot, readout: probs, damping: 1e-12 });
    expect(ce.linear.natural).toBeLessThan(1e-10);
    expect(ce.linear.gradientDescent).toBeGreaterThan(1e-4);
    const b = reparameterisationDemo(5, [0.1], 'dense(3,2) >> tanh >> dense(2,1)', {
      loss: bce,
      targets: (z) =>
        Tensor.of(
          Float64Array.from(z.data, (v) => (v > 0 ? 1 : 0)),
          z.shape,
          'float64',
        ),
    });
    expect(b.linear.natural).toBeLessThan(1e-10);
  });
});

describe('natural-gradient pieces', () => {
  it('dampedSolve solves (F + λI)x = g', () => {
    const F = Float64Array.from([4, 1, 0, 1, 3, 1, 0, 1, 2]),
      g = Float64Array.from([1, 2, 3]);
    const x = dampedSolve(F, 3, g, 0.5);
    for (let i = 0; i < 3; i++) expect(F.slice(i * 3, i * 3 + 3).reduce((s, v, j) => s + v * x[j]!, 0) + 0.5 * x[i]!).toBeCloseTo(g[i]!, 12);
  });
  it('the Gauss–Newton Fisher of a dense layer is E[ããᵀ] ⊗ I', () => {
    const f = parseSpec('dense(2,2)');
    const x = Tensor.from(
      [
        [1, 2],
        [3, -1],
        [0, 1],
      ],
      'float64',
    );
    const F = gaussNewtonFisher(f, f.init(0, 'float64'), x);
    // parameter order: W (2×2 row-major) then b (2): F[W_00, W_00] = mean x₀², F[W_00, b_0] = mean x₀
    expect(F[0]).toBeCloseTo((1 + 9 + 0) / 3, 12);
    expect(F[0 * 6 + 4]).toBeCloseTo((1 + 3 + 0) / 3, 12);
    expect(F[0 * 6 + 2]).toBeCloseTo(0, 12); // W_00 and W_10 feed different outputs
  });
  it('is registered as optimisers natural and kfac', () => {
    expect(optimizer('natural', { lr: 0.1 }).name).toBe('natural');
    expect(optimizer('kfac', { lr: 0.1 }).name).toBe('kfac');
  });
});

describe('K-FAC on dense layers', () => {
  const rng = new Rng(1);
  const N = 64;
  const x = Tensor.zeros([N, 3]),
    y = Tensor.zeros([N, 2]);
  for (let i = 0; i < x.size; i++) x.data[i] = rng.normal() * (i % 3 === 0 ? 5 : 0.2); // badly scaled inputs
  for (let i = 0; i < N; i++) {
    y.data[2 * i] = 0.3 * x.data[3 * i]! - 4 * x.data[3 * i + 1]!;
    y.data[2 * i + 1] = 2 * x.data[3 * i + 2]! + 1;
  }
  const data = { name: 'lin', x, y };
  it('records the factor A = E[ããᵀ] of the layer inputs', () => {
    const { model, stats } = kfacModel(parseSpec('dense(3,2)'));
    const t = new Trainer(model, data, { loss: mse, optimizer: new KFAC({ lr: 0.1 }), batch: N, shuffle: false });
    t.runEpoch();
    const s = [...stats.values()][0]!;
    let m00 = 0;
    for (let i = 0; i < N; i++) m00 += x.data[3 * i]! ** 2 / N;
    expect(s.A[0]).toBeCloseTo(m00, 3);
    expect(s.A[15]).toBeCloseTo(1, 6);
  });
  it('fits badly scaled linear regression far faster than SGD in the same number of steps', () => {
    const run = (opt: 'kfac' | 'sgd'): number => {
      const { model, stats } = kfacModel(parseSpec('dense(3,2)'));
      const o = opt === 'kfac' ? new KFAC({ lr: 0.5, damping: 1e-4 }, stats) : optimizer('sgd', { lr: 0.01 });
      const t = new Trainer(model, data, { loss: mse, optimizer: o, batch: N, seed: 0 });
      let l = 0;
      for (let e = 0; e < 30; e++) l = t.runEpoch().loss;
      return l;
    };
    const kfac = run('kfac'),
      sgd = run('sgd');
    expect(kfac).toBeLessThan(1e-3);
    expect(kfac).toBeLessThan(sgd / 100);
  });
  it('natural gradient bound to a model trains a small network', () => {
    const model = parseSpec('dense(3,4) >> tanh >> dense(4,2)');
    const opt = new NaturalGradient({ lr: 0.5, damping: 1e-3 });
    const t = new Trainer(model, data, { loss: mse, optimizer: opt, batch: N, seed: 0 });
    opt.bind(t.model, x);
    const first = t.runEpoch().loss;
    let last = first;
    for (let e = 0; e < 20; e++) last = t.runEpoch().loss;
    expect(last).toBeLessThan(first / 5);
  });
});
