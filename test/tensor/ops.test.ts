import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constantLr, cosine, Rng, ShapeError, stepDecay, Tensor, warmup } from '../../src/index.js';
import { tensorOps as ops } from '../../src/tensor/index.js';

const rand = (shape: number[], rng: Rng): Tensor =>
  Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
    'float64',
  );

describe('tensor ops', () => {
  it('matmul with transposes equals the naive product (random shapes)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 1, max: 9 }),
        fc.boolean(),
        fc.boolean(),
        fc.nat(),
        (m, n, k, ta, tb, s) => {
          const rng = new Rng(s);
          const a = rand(ta ? [k, m] : [m, k], rng),
            b = rand(tb ? [n, k] : [k, n], rng);
          const c = ops.matmul(a, b, { transA: ta, transB: tb });
          const A = ta ? ops.transpose(a) : a,
            B = tb ? ops.transpose(b) : b;
          for (let i = 0; i < m; i++)
            for (let j = 0; j < n; j++) {
              let s2 = 0;
              for (let p = 0; p < k; p++) s2 += A.get(i, p) * B.get(p, j);
              expect(c.get(i, j)).toBeCloseTo(s2, 10);
            }
        },
      ),
    );
    expect(() => ops.matmul(Tensor.zeros([2, 3]), Tensor.zeros([2, 3]))).toThrow(ShapeError);
  });

  it('broadcasting add, sum and mean', () => {
    const x = Tensor.from([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(ops.add(x, Tensor.from([10, 20, 30])).toArray()).toEqual([
      [11, 22, 33],
      [14, 25, 36],
    ]);
    expect(ops.add(x, Tensor.from([[100], [200]])).toArray()).toEqual([
      [101, 102, 103],
      [204, 205, 206],
    ]);
    expect(ops.mul(x, Tensor.from([2])).toArray()).toEqual([
      [2, 4, 6],
      [8, 10, 12],
    ]);
    expect(ops.sum(x, 0).toArray()).toEqual([5, 7, 9]);
    expect(ops.sum(x, -1).toArray()).toEqual([6, 15]);
    expect(ops.mean(x).data[0]).toBe(3.5);
    expect(ops.map(x, 'relu').toArray()).toEqual(x.toArray());
    expect(ops.map(x, (v) => -v).data[5]).toBe(-6);
    expect(() => ops.add(x, Tensor.from([1, 2]))).toThrow('cannot broadcast [2,3] with [2]');
  });
});

describe('learning-rate schedules', () => {
  it('step decay, cosine, warm-up', () => {
    expect(constantLr(100, 0.1)).toBe(0.1);
    expect(stepDecay(10, 0.5)(25, 1)).toBe(0.25);
    expect(cosine(100)(0, 1)).toBe(1);
    expect(cosine(100)(50, 1)).toBeCloseTo(0.5, 12);
    expect(cosine(100, 0.1)(100, 1)).toBe(0.1);
    expect(warmup(4)(0, 1)).toBe(0.25);
    expect(warmup(4)(3, 1)).toBe(1);
    expect(warmup(4, stepDecay(1, 0.5))(6, 1)).toBe(0.25);
  });
});
