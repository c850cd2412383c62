import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dense, elementwise, gradcheck, parseSpec, seq, Tensor, Rng, makeCtx } from '../../src/index.js';
import { deepSets, mapSet, maskedMap, permuteSets, pool } from '../../src/api/colimit.js';
import type { Para } from '../../src/index.js';

const randn = (shape: number[], seed: number): Tensor => {
  const rng = new Rng(seed);
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
};

/** Masked sets [B, n, d+1] with the given sizes: features random, padding zero, mask 1/0. */
function maskedSets(sizes: number[], n: number, d: number, seed: number, dtype: 'float32' | 'float64' = 'float64'): Tensor {
  const rng = new Rng(seed);
  const x = Tensor.zeros([sizes.length, n, d + 1], dtype);
  sizes.forEach((s, b) => {
    for (let i = 0; i < s; i++) {
      for (let j = 0; j < d; j++) x.data[(b * n + i) * (d + 1) + j] = rng.normal();
      x.data[(b * n + i) * (d + 1) + d] = 1;
    }
  });
  return x;
}

const morphisms: [string, Para, number[], ((seed: number) => Tensor) | undefined][] = [
  ['sum_pool', pool('sum'), [5, 3], undefined],
  ['mean_pool', pool('mean'), [5, 3], undefined],
  ['max_pool', pool('max'), [5, 3], undefined],
  ['masked_sum_pool', pool('sum', true), [5, 4], (s) => maskedSets([5, 2, 0], 5, 3, s)],
  ['masked_mean_pool', pool('mean', true), [5, 4], (s) => maskedSets([5, 2, 0], 5, 3, s)],
  ['masked_max_pool', pool('max', true), [5, 4], (s) => maskedSets([5, 2, 0], 5, 3, s)],
  ['map(dense(3,2) >> tanh)', mapSet(seq(dense(3, 2), elementwise('tanh'))), [4, 3], undefined],
  ['masked_map(dense(3,2) >> tanh)', maskedMap(seq(dense(3, 2), elementwise('tanh'))), [4, 4], (s) => maskedSets([4, 1, 0], 4, 3, s)],
  ['DeepSets (sum)', deepSets(seq(dense(2, 4), elementwise('tanh')), dense(4, 1)), [6, 2], undefined],
  [
    'DeepSets (masked mean)',
    deepSets(seq(dense(2, 4), elementwise('tanh')), dense(4, 1), { pool: 'mean', masked: true }),
    [6, 3],
    (s) => maskedSets([6, 3, 0], 6, 2, s),
  ],
  [
    'DeepSets (masked max)',
    deepSets(seq(dense(2, 4), elementwise('tanh')), dense(4, 1), { pool: 'max', masked: true }),
    [6, 3],
    (s) => maskedSets([6, 3, 1], 6, 2, s),
  ],
];

describe('pooling colimits, map and DeepSets pass float64 gradient checks', () => {
  it.each(morphisms)('%s', (_name, f, dom, input) => {
    for (const seed of [1, 2, 3]) {
      const r = gradcheck(f, { dom, seed, x: input?.(seed) });
      expect(r.ok, `relError ${r.relError}`).toBe(true);
      expect(Math.abs(r.analytic)).toBeGreaterThan(1e-6);
    }
  });
});

describe('pool values and pullbacks', () => {
  const x = Tensor.from(
    [
      [
        [1, 5],
        [3, 5],
        [2, -1],
      ],
    ],
    'float64',
  );
  it('sum, mean, max of a set', () => {
    expect(Array.from(pool('sum').run([], x).data)).toEqual([6, 9]);
    expect(Array.from(pool('mean').run([], x).data)).toEqual([2, 3]);
    expect(Array.from(pool('max').run([], x).data)).toEqual([3, 5]);
  });
  it('the sum pullback broadcasts, mean divides by n', () => {
    const dy = Tensor.from([[1, 2]], 'float64');
    expect(Array.from(pool('sum').forward([], x, makeCtx()).pullback(dy, null).data)).toEqual([1, 2, 1, 2, 1, 2]);
    expect(Array.from(pool('mean').forward([], x, makeCtx()).pullback(dy, null).data).map((v) => v * 3)).toEqual([1, 2, 1, 2, 1, 2]);
  });
  it('max routes the gradient to the arg-max and splits ties equally', () => {
    const dy = Tensor.from([[1, 2]], 'float64');
    // feature 0: arg-max is slot 1; feature 1: slots 0 and 1 tie at 5
    expect(Array.from(pool('max').forward([], x, makeCtx()).pullback(dy, null).data)).toEqual([0, 1, 1, 1, 0, 0]);
  });
  it('an empty masked set pools to 0 with zero gradient, never NaN', () => {
    const e = maskedSets([0, 2], 3, 2, 7);
    for (const op of ['sum', 'mean', 'max'] as const) {
      const lens = pool(op, true).forward([], e, makeCtx());
      expect(Array.from(lens.y.data.subarray(0, 2))).toEqual([0, 0]);
      expect(lens.y.data.every(Number.isFinite)).toBe(true);
      const dx = lens.pullback(Tensor.full([2, 2], 1, 'float64'), null);
      expect(Array.from(dx.data.subarray(0, 9)).every((v) => v === 0)).toBe(true);
      expect(dx.data.every(Number.isFinite)).toBe(true);
    }
  });
  it('masked pooling ignores padding slots whatever they hold', () => {
    const a = maskedSets([2], 4, 2, 3);
    const b = a.clone();
    for (let i = 2; i < 4; i++) for (let j = 0; j < 2; j++) b.data[i * 3 + j] = 100 + i + j; // garbage in padding
    for (const op of ['sum', 'mean', 'max'] as const) expect(Array.from(pool(op, true).run([], b).data)).toEqual(Array.from(pool(op, true).run([], a).data));
  });
  it('shapes are checked when composed, naming both sides', () => {
    expect(() => parseSpec('map(dense(2,4),5) >> sum_pool >> dense(3,1)')).toThrow(/dense\(3,1\) expects \[\*,3\] but got \[\*,4\]/);
    expect(() => mapSet(dense(2, 4)).at([5, 3])).toThrow(/dense\(2,4\).*\[\*,2\].*\[\*,3\]/);
  });
  it('spec strings print and parse back', () => {
    for (const s of ['map(dense(2,4) >> relu) >> sum_pool >> dense(4,1)', 'masked_map(dense(2,4),6) >> masked_max_pool', 'map(dense(2,3),5) >> mean_pool']) {
      expect(parseSpec(s).toString()).toBe(s);
      expect(parseSpec(parseSpec(s).toString()).toString()).toBe(s);
    }
  });
});

describe('permutation invariance (property): outputs and parameter gradients', () => {
  const cases: [string, Para, boolean][] = [
    ['sum', deepSets(seq(dense(3, 8), elementwise('relu')), seq(dense(8, 4), elementwise('tanh'), dense(4, 2)), { pool: 'sum' }), false],
    ['mean', deepSets(seq(dense(3, 8), elementwise('tanh')), dense(8, 2), { pool: 'mean' }), false],
    ['max', deepSets(seq(dense(3, 8), elementwise('tanh')), dense(8, 2), { pool: 'max' }), false],
    ['masked sum', deepSets(seq(dense(2, 8), elementwise('relu')), dense(8, 2), { pool: 'sum', masked: true }), true],
    ['masked mean', deepSets(seq(dense(2, 8), elementwise('relu')), dense(8, 2), { pool: 'mean', masked: true }), true],
    ['masked max', deepSets(seq(dense(2, 8), elementwise('tanh')), dense(8, 2), { pool: 'max', masked: true }), true],
  ];
  it.each(cases)('%s DeepSets', (_name, model, masked) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 4 }), fc.nat(1e6), (n, B, seed) => {
        const rng = new Rng(seed);
        const x = masked
          ? maskedSets(
              Array.from({ length: B }, () => rng.int(n + 1)),
              n,
              2,
              seed,
              'float32',
            )
          : randn([B, n, 3], seed).to('float32');
        const f = model.at(x.shape.slice(1));
        const theta = f.init(seed);
        const px = permuteSets(x, seed + 1);
        const outGrad = (input: Tensor) => {
          const lens = f.forward(theta, input, makeCtx());
          const g = theta.map((t) => Tensor.zeros(t.shape));
          lens.pullback(Tensor.full(lens.y.shape, 1), g);
          return { y: Array.from(lens.y.data), g: g.flatMap((t) => Array.from(t.data)) };
        };
        const a = outGrad(x),
          b = outGrad(px);
        a.y.forEach((v, i) => expect(b.y[i]).toBeCloseTo(v, 4));
        a.g.forEach((v, i) => expect(Math.abs(b.g[i]! - v)).toBeLessThan(1e-4 * (1 + Math.abs(v))));
      }),
      { numRuns: 40 },
    );
  });
  it('the property test would catch a model that is not invariant', () => {
    const mlp = dense(9, 1);
    const x = randn([4, 3, 3], 5);
    const y0 = mlp.run(mlp.init(1), x.reshape([4, 9]));
    const y1 = mlp.run(mlp.init(1), permuteSets(x, 2).reshape([4, 9]));
    expect(Math.max(...Array.from(y0.data, (v, i) => Math.abs(v - y1.data[i]!)))).toBeGreaterThan(1e-3);
  });
});
