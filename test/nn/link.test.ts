import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bce, evaluate, lossByName, lossNames, mse, parseSpec, Rng, softmaxCrossEntropy, Tensor, xor } from '../../src/index.js';
import { applyLink } from '../../src/nn/index.js';
import type { Loss } from '../../src/index.js';
import type { Link } from '../../src/nn/index.js';
import { classify as classifyRows } from '../../src/cli/commands/predict.js';

const logitRows = (B: number, C: number) =>
  fc.array(fc.double({ min: -8, max: 8, noNaN: true }), { minLength: B * C, maxLength: B * C }).map((v) => Tensor.of(v, [B, C], 'float64'));

describe('every loss carries its output link', () => {
  it('mse reads predictions as they are, bce through the sigmoid, softmax cross-entropy through the softmax', () => {
    const links: Record<string, Link> = Object.fromEntries(lossNames().map((n) => [n, lossByName(n).link]));
    expect(links).toEqual({ mse: 'identity', bce: 'sigmoid', 'softmax-cross-entropy': 'softmax', 'token-cross-entropy': 'softmax' });
  });

  // The link is the one under which the loss is a likelihood: the loss is the mean negative
  // log-likelihood (bce, softmax CE) or the mean squared error (mse) of link(z).
  it('bce is −log of the Bernoulli likelihood of σ(z): −[t·log σ(z) + (1−t)·log(1−σ(z))]', () => {
    fc.assert(
      fc.property(logitRows(3, 2), fc.array(fc.constantFrom(0, 1), { minLength: 6, maxLength: 6 }), (z, t) => {
        const p = applyLink(z, bce.link);
        let nll = 0;
        for (let i = 0; i < 6; i++) nll -= t[i]! ? Math.log(p.data[i]!) : Math.log(1 - p.data[i]!);
        expect(bce.apply(z, Tensor.of(t, [3, 2], 'float64')).value).toBeCloseTo(nll / 6, 9);
      }),
    );
  });

  it('softmax cross-entropy is −Σ t·log softmax(z), mean over rows', () => {
    fc.assert(
      fc.property(logitRows(2, 4), fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 2, maxLength: 2 }), (z, labels) => {
        const p = applyLink(z, softmaxCrossEntropy.link);
        const t = Tensor.zeros([2, 4], 'float64');
        labels.forEach((c, b) => {
          t.data[b * 4 + c] = 1;
        });
        const nll = -(Math.log(p.data[labels[0]!]!) + Math.log(p.data[4 + labels[1]!]!)) / 2;
        expect(softmaxCrossEntropy.apply(z, t).value).toBeCloseTo(nll, 9);
      }),
    );
  });

  it('mse is the mean squared distance of link(z) = z from the target', () => {
    fc.assert(
      fc.property(logitRows(2, 3), logitRows(2, 3), (z, t) => {
        const p = applyLink(z, mse.link);
        let s = 0;
        for (let i = 0; i < 6; i++) s += (p.data[i]! - t.data[i]!) ** 2;
        expect(mse.apply(z, t).value).toBeCloseTo(s / 6, 9);
      }),
    );
  });
});

describe('callers ask the loss for its link, not its name', () => {
  const net = parseSpec('dense(2,3) >> tanh >> dense(3,1)');
  const theta = net.init(new Rng(3));
  const data = xor();

  it('accuracy thresholds a logit at 0 under the sigmoid link and a prediction at 0.5 under the identity, whatever the loss is called', () => {
    const renamed: Loss = { ...bce, name: 'my-bce' };
    expect(evaluate(net, theta, data, renamed)).toEqual(evaluate(net, theta, data, bce));
    const y = net.run(theta, data.x);
    const expected = (threshold: number) => Array.from(y.data, (v, i) => Number((v > threshold ? 1 : 0) === data.labels![i])).reduce((a, b) => a + b, 0) / 4;
    expect(evaluate(net, theta, data, renamed).accuracy).toBe(expected(0));
    expect(evaluate(net, theta, data, { ...mse, name: 'my-mse' }).accuracy).toBe(expected(0.5));
  });

  it('predict gives probabilities for a model trained on logits and classes alone otherwise', () => {
    const y = Tensor.of([-1, 0.3, 2], [3, 1], 'float64');
    const withLoss = (loss: string) => classifyRows(y, { loss, classes: ['no', 'yes'] });
    expect(withLoss('bce')).toEqual({
      classes: ['no', 'yes', 'yes'],
      probability: [1 - 1 / (1 + Math.E), 1 / (1 + Math.exp(-0.3)), 1 / (1 + Math.exp(-2))].map((p) => expect.closeTo(p, 12)),
    });
    expect(withLoss('mse')).toEqual({ classes: ['no', 'no', 'yes'] });
    expect(withLoss('no-such-loss')).toEqual({ classes: ['no', 'no', 'yes'] });
  });
});
