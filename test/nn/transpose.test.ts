import { describe, expect, it } from 'vitest';
import { copy, dense, gradcheck, makeCtx, par, seq, Tensor } from '../../src/index.js';
import { transpose } from '../../src/nn/transpose.js';
import { randn } from '../symmetry/helpers.js';

describe('transpose', () => {
  it('swaps the two axes of each sample, passes a float64 gradient check, and is its own inverse', () => {
    const f = transpose([2, 3]);
    expect([f.dom, f.cod]).toEqual([
      [2, 3],
      [3, 2],
    ]);
    const x = Tensor.of([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], [2, 2, 3], 'float64');
    expect(Array.from(f.run([], x).data)).toEqual([1, 4, 2, 5, 3, 6, 7, 10, 8, 11, 9, 12]);
    expect(Array.from(seq(f, transpose()).run([], x).data)).toEqual(Array.from(x.data));
    for (const seed of [1, 2]) expect(gradcheck(transpose([3, 5]), { seed }).ok).toBe(true);
    expect(() => transpose([4])).toThrow(/matrix/);
  });

  it('copy >> (transpose @ (f >> transpose)) >> transpose appends f(x) to each row of x', () => {
    const rows = seq(dense(3, 2)); // on [4, 3]: each of 4 rows → 2 values
    const g = seq(copy([4, 3]), par(transpose([4, 3]), seq(rows.at([4, 3]), transpose([4, 2]))), transpose([5, 4]));
    expect(g.cod).toEqual([4, 5]);
    const theta = g.init(1, 'float64');
    const x = randn([2, 4, 3], 2, 'float64');
    const y = g.run(theta, x),
      fx = rows.at([4, 3]).forward(theta, x, makeCtx()).y;
    for (let r = 0; r < 8; r++) {
      expect(Array.from(y.data.subarray(r * 5, r * 5 + 3))).toEqual(Array.from(x.data.subarray(r * 3, r * 3 + 3)));
      expect(Array.from(y.data.subarray(r * 5 + 3, r * 5 + 5))).toEqual(Array.from(fx.data.subarray(r * 2, r * 2 + 2)));
    }
    expect(gradcheck(g, { batch: 2 }).ok).toBe(true);
  });
});
