import { describe, expect, it } from 'vitest';
import {
  blobs,
  circles,
  iris,
  moons,
  mse,
  NonFiniteError,
  parseSpec,
  softmaxCrossEntropy,
  spirals,
  stratifiedSplit,
  Tensor,
  train,
  Trainer,
  xor,
  bce,
} from '../../src/index.js';
import { epochsToTarget, XOR_RELU_SPEC, XOR_SPEC } from '../../src/cli/tour/para.js';

describe('seed 000 results, reproduced', () => {
  it('XOR with input(2) → hidden(4) → hidden(4) → output(1), sigmoid, 6000 epochs: all four on the right side with margin', () => {
    for (const seed of [0, 1, 2]) {
      const r = train(parseSpec(XOR_SPEC), xor(), { loss: mse, epochs: 6000, lr: 0.5, batch: 1, seed });
      const p = Array.from(r.model.run(r.theta, xor().x).data);
      expect(p[0]).toBeLessThan(0.1);
      expect(p[1]).toBeGreaterThan(0.9);
      expect(p[2]).toBeGreaterThan(0.9);
      expect(p[3]).toBeLessThan(0.1);
      expect(r.accuracy).toBe(1);
    }
  });

  it('exercise 1: ReLU hidden layers reach loss < 0.01 in fewer epochs than all-sigmoid, and dead units are counted', () => {
    const opts = { lr: 0.5, maxEpochs: 6000, target: 0.01 };
    let reluFaster = 0;
    const dead: number[] = [];
    for (const seed of [0, 1, 2, 3]) {
      const s = epochsToTarget(XOR_SPEC, seed, opts);
      const r = epochsToTarget(XOR_RELU_SPEC, seed, { ...opts, lr: 0.1 });
      expect(s.epochs).toBeGreaterThan(100);
      expect(s.epochs).toBeLessThan(6000);
      expect(s.dead).toBe(0);
      dead.push(r.dead);
      if (r.epochs !== undefined && r.epochs < s.epochs!) reluFaster++;
    }
    expect(reluFaster).toBeGreaterThanOrEqual(3);
    // dead ReLU units (zero on all four inputs) after training, pinned for these seeds
    expect(dead).toEqual([2, 2, 4, 1]);
  });
});

describe('real data', () => {
  it('Iris 4 → 16 → 3 softmax on a seeded stratified 80/20 split: test ≥ 0.93, train ≥ 0.97', () => {
    const split = stratifiedSplit(iris(), 0.2, 0);
    expect(split.train.x.batch).toBe(120);
    expect(split.test.x.batch).toBe(30);
    for (let c = 0; c < 3; c++) expect(Array.from(split.test.labels!).filter((l) => l === c).length).toBe(10);
    const r = train(parseSpec('dense(4,16) >> relu >> dense(16,3)'), split.train, {
      loss: softmaxCrossEntropy,
      epochs: 200,
      lr: 0.01,
      optimizer: 'adam',
      batch: 16,
      seed: 0,
      test: split.test,
    });
    expect(r.accuracy!).toBeGreaterThanOrEqual(0.97);
    expect(r.testAccuracy!).toBeGreaterThanOrEqual(0.93);
  });

  it('generated sets are learnable and seeded', () => {
    expect(Array.from(moons(50, 0.1, 3).x.data)).toEqual(Array.from(moons(50, 0.1, 3).x.data));
    expect(Array.from(moons(50, 0.1, 3).x.data)).not.toEqual(Array.from(moons(50, 0.1, 4).x.data));
    for (const ds of [moons(200, 0.1, 1), circles(200, 0.05, 1)]) {
      const r = train(parseSpec('dense(2,16) >> tanh >> dense(16,1)'), ds, { loss: bce, epochs: 300, lr: 0.05, optimizer: 'adam', batch: 32, seed: 1 });
      expect(r.accuracy!, ds.name).toBeGreaterThan(0.95);
    }
    const sp = spirals(400, 0.05, 0);
    expect(sp.x.shape).toEqual([400, 2]);
    expect(blobs(90, 3, 0.5, 0).y.shape).toEqual([90, 3]);
  });
});

describe('training loop', () => {
  it('the same seed gives bit-identical parameters', () => {
    const run = () =>
      train(parseSpec('dense(2,8) >> relu >> dense(8,1)'), moons(100, 0.1, 0), { loss: bce, epochs: 5, lr: 0.1, batch: 10, seed: 42, optimizer: 'adam' });
    const a = run(),
      b = run();
    expect(a.theta.map((t) => Array.from(t.data))).toEqual(b.theta.map((t) => Array.from(t.data)));
  });

  it('stops with a NonFiniteError naming the epoch, step and morphism when the loss or a gradient becomes non-finite', () => {
    const ds = {
      ...xor(),
      x: Tensor.from([
        [0, 0],
        [0, 1],
        [1, 0],
        [1e30, 1e30],
      ]),
    };
    let err: unknown;
    try {
      train(parseSpec('dense(2,4) >> dense(4,1)'), ds, { loss: mse, epochs: 50, lr: 10, seed: 0 });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(NonFiniteError);
    expect((err as NonFiniteError).message).toMatch(
      /(loss became (NaN|Infinity)|a gradient became non-finite) at epoch \d+, step \d+: the (forward|pullback) of dense\(\d,\d\) \(factor \d of 2\)/,
    );
    expect((err as NonFiniteError).usage).toBe(false);
  });

  it('rejects non-finite data at the boundary, naming row and column', () => {
    const ds = {
      ...xor(),
      x: Tensor.from([
        [0, 0],
        [0, NaN],
        [1, 0],
        [1, 1],
      ]),
    };
    expect(() => new Trainer(parseSpec('dense(2,1)'), ds, { loss: mse })).toThrow('xor: non-finite input NaN at row 2, column 2');
  });

  it('rejects a model whose shapes do not fit the data, naming both', () => {
    expect(() => new Trainer(parseSpec('dense(3,1)'), xor(), { loss: mse })).toThrow(/expects inputs \[\*,3\] but xor has inputs \[4,2\]/);
    expect(() => new Trainer(parseSpec('dense(2,3)'), xor(), { loss: mse })).toThrow(/outputs \[\*,3\] but xor has targets \[4,1\]/);
    expect(() => train(parseSpec('dense(2,1)'), xor(), { loss: mse, epochs: 0 })).toThrow(/epochs must be a positive integer/);
    expect(() => new Trainer(parseSpec('dense(2,1)'), xor(), { loss: mse, lr: -1 })).toThrow(/learning rate must be a positive number/);
    expect(() => new Trainer(parseSpec('dense(2,1)'), xor(), { loss: mse, optimizer: 'adagrad' })).toThrow(/unknown optimizer 'adagrad'; known: sgd, momentum/);
  });
});
