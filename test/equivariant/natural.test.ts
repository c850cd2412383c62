import { describe, expect, it } from 'vitest';
import { reparameterisationDemo } from '../../src/equivariant/tasks/fibration.js';
import { linearReparam } from '../../src/para/param-maps.js';
import { dampedSolve } from '../../src/linalg/cholesky.js';
import { gaussNewtonFisher, NaturalGradient } from '../../src/optim/natural-gradient.js';
import { KFAC, kfacModel } from '../../src/optim/kfac.js';
import { optimizer } from '../../src/optim/by-name.js';
import { parseSpec } from '../../src/spec/index.js';
import { gradcheck } from '../../src/para/gradcheck.js';
import { mse } from '../../src/nn/loss.js';
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

describe('natural-gradient pieces', () => {
  it('dampedSolve solves (F + λI)x = g', () => {
    const F = Float64Array.from([4, 1, 0, 1, 3, 1, 0, 1, 2]), g = Float64Array.from([1, 2, 3]);
    const x = dampedSolve(F, 3, g, 0.5);
    for (let i = 0; i < 3; i++) expect(F.slice(i * 3, i * 3 + 3).reduce((s, v, j) => s + v * x[j]!, 0) + 0.5 * x[i]!).toBeCloseTo(g[i]!, 12);
  });
  it('the Gauss–Newton Fisher of a dense layer is E[ããᵀ] ⊗ I', () => {
    const f = parseSpec('dense(2,2)');
    const x = Tensor.from([[1, 2], [3, -1], [0, 1]], 'float64');
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
  const x = Tensor.zeros([N, 3]), y = Tensor.zeros([N, 2]);
  for (let i = 0; i < x.size; i++) x.data[i] = rng.normal() * (i % 3 === 0 ? 5 : 0.2); // badly scaled inputs
  for (let i = 0; i < N; i++) { y.data[2 * i] = 0.3 * x.data[3 * i]! - 4 * x.data[3 * i + 1]!; y.data[2 * i + 1] = 2 * x.data[3 * i + 2]! + 1; }
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
    const kfac = run('kfac'), sgd = run('sgd');
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
