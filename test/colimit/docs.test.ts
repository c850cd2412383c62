import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dense, iris, parseSpec, relu, seq, Tensor, Rng } from '../../src/index.js';
import { assignPoints, deepSets, kMeans, permuteSets, updateCentres } from '../../src/api/colimit.js';

describe('docs/colimit.md example, as printed there', () => {
  it('DeepSets output is the same on a permuted batch; masked mean of an empty set is 0; Iris inertia', () => {
    const model = parseSpec('map(dense(2,8) >> relu) >> sum_pool >> dense(8,1)').at([3, 2]);
    const theta = model.init(0);
    const sets = Tensor.from([
      [
        [1, 2],
        [3, 4],
        [5, 6],
      ],
      [
        [0, 0],
        [1, 0],
        [0, 1],
      ],
    ]);
    const a = Array.from(model.run(theta, sets).data),
      b = Array.from(model.run(theta, permuteSets(sets, 7)).data);
    expect(a[0]).toBeCloseTo(-4.312385082244873, 5);
    expect(a[1]).toBeCloseTo(-0.7510022521018982, 5);
    expect(b).toEqual(a);
    expect(String(deepSets(seq(dense(2, 8), relu()), dense(8, 1)))).toBe('map(dense(2,8) >> relu) >> sum_pool >> dense(8,1)');
    const masked = Tensor.from([
      [
        [1, 2, 1],
        [3, 4, 1],
        [0, 0, 0],
      ],
      [
        [0, 0, 0],
        [0, 0, 0],
        [0, 0, 0],
      ],
    ]);
    expect(Array.from(parseSpec('masked_mean_pool').run([], masked).data)).toEqual([2, 3, 0, 0]);
    const r = kMeans(iris().x, { k: 3, restarts: 10, seed: 0 });
    expect(r.inertia.toFixed(4)).toBe('78.9408');
    expect(r.sizes).toEqual([50, 62, 38]);
  });
});

describe('laws of the Lloyd iteration (property)', () => {
  it('neither the assignment (universal morphism) nor the update (colimit) increases the inertia', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 6 }), fc.nat(1e6), (N, d, k0, seed) => {
        const k = Math.min(k0, N);
        const rng = new Rng(seed);
        const p = Float64Array.from({ length: N * d }, () => rng.normal() * 3);
        const centres = Float64Array.from({ length: k * d }, () => rng.normal() * 3);
        const labels = new Int32Array(N),
          dist = new Float64Array(N);
        let prev = assignPoints(p, N, d, centres, k, labels, dist);
        for (let it = 0; it < 5; it++) {
          const sizes = updateCentres(p, N, d, labels, dist, k, centres);
          if (sizes.some((s) => s === 0)) return; // a repair moves a centre onto a point: a different step
          // the update alone: inertia of the old assignment at the new centres
          let upd = 0;
          for (let i = 0; i < N; i++) for (let t = 0; t < d; t++) upd += (p[i * d + t]! - centres[labels[i]! * d + t]!) ** 2;
          expect(upd).toBeLessThanOrEqual(prev + 1e-9 * (1 + prev));
          const next = assignPoints(p, N, d, centres, k, labels, dist);
          expect(next).toBeLessThanOrEqual(upd + 1e-9 * (1 + upd));
          prev = next;
        }
      }),
      { numRuns: 100 },
    );
  });
  it('sum pooling is additive over a split of the set (the coproduct’s universal map)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.nat(1e6), (n1, n2, seed) => {
        const rng = new Rng(seed);
        const whole = Tensor.of(
          Array.from({ length: (n1 + n2) * 3 }, () => rng.normal()),
          [1, n1 + n2, 3],
          'float64',
        );
        const a = whole.reshape([1, n1 + n2, 3]);
        const left = Tensor.of(a.data.subarray(0, n1 * 3), [1, n1, 3], 'float64'),
          right = Tensor.of(a.data.subarray(n1 * 3), [1, n2, 3], 'float64');
        const sp = parseSpec('sum_pool');
        const s = sp.run([], whole).data,
          l = sp.run([], left).data,
          r = sp.run([], right).data;
        for (let j = 0; j < 3; j++) expect(s[j]).toBeCloseTo(l[j]! + r[j]!, 10);
      }),
      { numRuns: 50 },
    );
  });
});
