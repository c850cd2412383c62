import { describe, expect, it } from 'vitest';
import {
  adapter, seq, Tensor, Rng, representationFunctor, naturalityDefect, identity, permuteFeatures, rotate2d, gaussianNoise,
  distillationLoss, distillationTarget, exercise4,
} from '../../src/index.js';

describe('docs/natural.md example, as printed there', () => {
  it('η = M is natural, a random η is not; the loss lens value and gradient; exercise 4', () => {
    const rng = new Rng(5);
    const randn = (shape: number[]) => Tensor.of(Array.from({ length: shape[0]! * shape[1]! }, () => rng.normal()), shape, 'float64');
    const x = randn([40, 3]), A = randn([3, 3]), M = randn([3, 3]);
    const F = representationFunctor('F', adapter(3, 3), [A]);
    const G = representationFunctor('G', seq(adapter(3, 3), adapter(3, 3)), [A, M]);
    const arrows = [identity, permuteFeatures([2, 0, 1]), rotate2d(0.7), gaussianNoise(0.1, 1)];
    const good = naturalityDefect(adapter(3, 3), [M], F, G, arrows, x).map((q) => q.relative);
    const bad = naturalityDefect(adapter(3, 3), [randn([3, 3])], F, G, arrows, x).map((q) => q.relative);
    expect(Math.max(...good)).toBeLessThan(1e-6);
    expect(bad[0]).toBe(0);
    expect(bad[1]).toBeCloseTo(6.31, 1);
    expect(bad[2]).toBeCloseTo(5.94, 1);
    expect(bad[3]).toBeCloseTo(0.646, 2);
    const s = Tensor.from([[2, 0, -1]], 'float64'), t = Tensor.from([[1, 1, -2]], 'float64'), y = Tensor.from([[1, 0, 0]], 'float64');
    const L = distillationLoss(4, 0.9).apply(s, distillationTarget(y, t));
    expect(L.value.toFixed(6)).toBe('0.433103');
    expect(Array.from(L.pullback().data, (v) => v.toFixed(6))).toEqual(['0.259972', '-0.394354', '0.134382']);
    const e = exercise4({ seed: 0 });
    expect(e.lossBefore.toFixed(4)).toBe('1.0410');
    expect(e.lossAfter.toExponential(3)).toBe('5.230e-5');
    expect(e.rankCorrelationTarget.toFixed(3)).toBe('0.943');
  });
});
