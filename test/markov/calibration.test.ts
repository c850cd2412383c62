import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/index.js';
import { expectedCalibrationError, negativeLogLikelihood, probAccuracy } from '../../src/markov/index.js';
import { Tensor } from '../../src/tensor/index.js';
import { ShapeError } from '../../src/errors.js';

describe('calibration metrics', () => {
  it('ECE and NLL on a hand-computed example', () => {
    // confidences 0.9 (right), 0.9 (wrong), 0.6 (right): bins 14 and 9
    const probs = Tensor.from([
      [0.9, 0.1],
      [0.1, 0.9],
      [0.4, 0.6],
    ]);
    const labels = Int32Array.from([0, 0, 1]);
    expect(probAccuracy(probs, labels)).toBeCloseTo(2 / 3, 12);
    // bin with 0.9s: acc 1/2, conf 0.9 → 2/3·0.4; bin with 0.6: acc 1, conf 0.6 → 1/3·0.4
    expect(expectedCalibrationError(probs, labels, 15)).toBeCloseTo((2 / 3) * 0.4 + (1 / 3) * 0.4, 6);
    expect(negativeLogLikelihood(probs, labels)).toBeCloseTo(-(Math.log(0.9) + Math.log(0.1) + Math.log(0.6)) / 3, 6);
  });

  it('binary probabilities in one column mean P(class 1)', () => {
    const probs = Tensor.of([0.8, 0.3], [2, 1]);
    const labels = Int32Array.from([1, 0]);
    expect(probAccuracy(probs, labels)).toBe(1);
    expect(negativeLogLikelihood(probs, labels)).toBeCloseTo(-(Math.log(0.8) + Math.log(0.7)) / 2, 6);
  });

  it('a calibrated forecaster has small ECE, an overconfident one a large ECE', () => {
    const rng = new Rng(3);
    const n = 20000;
    const p = Tensor.zeros([n, 1], 'float64'),
      over = Tensor.zeros([n, 1], 'float64');
    const labels = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const q = rng.uniform();
      p.data[i] = q;
      over.data[i] = q > 0.5 ? 0.99 : 0.01;
      labels[i] = rng.bernoulli(q);
    }
    expect(expectedCalibrationError(p, labels)).toBeLessThan(0.02);
    expect(expectedCalibrationError(over, labels)).toBeGreaterThan(0.2);
    expect(negativeLogLikelihood(over, labels)).toBeGreaterThan(negativeLogLikelihood(p, labels));
  });

  it('mismatched rows are a ShapeError', () => {
    expect(() => expectedCalibrationError(Tensor.zeros([3, 2]), new Int32Array(2))).toThrow(ShapeError);
  });
});
