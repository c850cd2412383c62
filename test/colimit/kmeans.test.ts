import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { blobCentres, blobs, iris, Rng, Tensor, DataError, RangeArgError } from '../../src/index.js';
import { fisherIrisFeatures, kMeans, kMeansPlusPlus, lloyd } from '../../src/api/colimit.js';
import { itWith, numpy, PYTHON } from '../peer/available.js';

describe('k-means as a colimit construction', () => {
  it('recovers the three blob centres', () => {
    const r = kMeans(blobs(150, 3, 0.5, 0).x, { k: 3, seed: 0 });
    for (const c of blobCentres(3)) {
      const nearest = Math.min(...r.centroids.map((m) => Math.hypot(m[0]! - c[0]!, m[1]! - c[1]!)));
      expect(nearest).toBeLessThan(0.2);
    }
    expect([...r.sizes].sort()).toEqual([50, 50, 50]);
    expect(r.sizes.reduce((a, b) => a + b)).toBe(150);
    expect(r.converged).toBe(true);
  });
  it('each centroid is the mean of its cluster and each point is assigned to its nearest centroid', () => {
    const x = iris().x;
    const r = kMeans(x, { k: 3, seed: 1 });
    for (let c = 0; c < 3; c++) {
      const mean = [0, 0, 0, 0];
      let n = 0;
      r.assignments.forEach((a, i) => {
        if (a !== c) return;
        n++;
        for (let t = 0; t < 4; t++) mean[t]! += x.data[i * 4 + t]!;
      });
      expect(n).toBe(r.sizes[c]);
      mean.forEach((m, t) => expect(r.centroids[c]![t]).toBeCloseTo(m / n, 6));
    }
    let inertia = 0;
    for (let i = 0; i < 150; i++) {
      const d = r.centroids.map((m) => m.reduce((s, v, t) => s + (x.data[i * 4 + t]! - v) ** 2, 0));
      expect(d[r.assignments[i]!]).toBe(Math.min(...d));
      inertia += Math.min(...d);
    }
    expect(r.inertia).toBeCloseTo(inertia, 6);
  });
  it("reaches the standard inertia on Fisher's Iris (scikit-learn: 78.85) and 78.94 on the UCI file", () => {
    expect(kMeans(fisherIrisFeatures(iris().x), { k: 3, restarts: 10, seed: 0 }).inertia).toBeCloseTo(78.851, 2);
    const uci = kMeans(iris().x, { k: 3, restarts: 10, seed: 0 });
    expect(uci.inertia).toBeCloseTo(78.941, 2);
    expect([...uci.sizes].sort()).toEqual([38, 50, 62]);
  });
  it('restarts keep the lowest inertia', () => {
    const r = kMeans(iris().x, { k: 5, restarts: 6, seed: 3 });
    expect(r.restartInertias).toHaveLength(6);
    expect(r.inertia).toBe(Math.min(...r.restartInertias));
  });
  it('is reproducible: same seed, same bits', () => {
    const a = kMeans(iris().x, { k: 4, seed: 9 }),
      b = kMeans(iris().x, { k: 4, seed: 9 });
    expect(a.centroids).toEqual(b.centroids);
    expect(a.inertia).toBe(b.inertia);
  });
  it('repairs an empty cluster', () => {
    // two identical far-off seeds: the second centre gets no points on the first assignment
    const x = Tensor.from(
      [
        [0, 0],
        [0, 1],
        [1, 0],
        [10, 10],
        [10, 11],
      ],
      'float64',
    );
    const p = Float64Array.from(x.data);
    const centres = Float64Array.from([100, 100, 100, 100]);
    const r = lloyd(p, 5, 2, 2, centres, 50, 0);
    expect(r.sizes.every((s) => s > 0)).toBe(true);
    expect(r.sizes.reduce((a, b) => a + b)).toBe(5);
  });
  it('k-means++ picks distinct data points as seeds', () => {
    const p = Float64Array.from(blobs(60, 3, 0.3, 2).x.data);
    const c = kMeansPlusPlus(p, 60, 2, 3, new Rng(0));
    const seeds = [0, 1, 2].map((i) => `${c[2 * i]},${c[2 * i + 1]}`);
    expect(new Set(seeds).size).toBe(3);
  });
  it('rejects bad input with typed errors', () => {
    const x = Tensor.from([
      [0, 0],
      [1, 1],
    ]);
    expect(() => kMeans(x, { k: 3 })).toThrow(RangeArgError);
    expect(() => kMeans(x, { k: 3 })).toThrow(/larger than the number of points \(2\)/);
    expect(() => kMeans(x, { k: 0 })).toThrow(/positive integer/);
    expect(() => kMeans(Tensor.zeros([0, 2]), { k: 1 })).toThrow(DataError);
    expect(() =>
      kMeans(
        Tensor.from([
          [0, 0],
          [NaN, 1],
        ]),
        { k: 1 },
      ),
    ).toThrow(/non-finite value NaN at row 2, column 1/);
  });
  itWith(numpy(), 'agrees with a NumPy Lloyd iteration from the same seeds', () => {
    const x = iris().x;
    const p = Float64Array.from(x.data);
    const init = kMeansPlusPlus(p, 150, 4, 3, new Rng(5));
    const ours = lloyd(p, 150, 4, 3, Float64Array.from(init), 300, 0);
    const script = `
import json, sys, numpy as np
d = json.load(sys.stdin); X = np.array(d['x']).reshape(-1, 4); C = np.array(d['c']).reshape(-1, 4)
for _ in range(300):
    lab = ((X[:, None, :] - C[None]) ** 2).sum(-1).argmin(1)
    C2 = np.array([X[lab == j].mean(0) for j in range(3)])
    if np.allclose(C2, C, atol=0, rtol=0): break
    C = C2
lab = ((X[:, None, :] - C[None]) ** 2).sum(-1).argmin(1)
print(json.dumps({'inertia': float(((X - C[lab]) ** 2).sum()), 'centres': C.ravel().tolist()}))`;
    const out = JSON.parse(execFileSync(PYTHON, ['-c', script], { input: JSON.stringify({ x: Array.from(p), c: Array.from(init) }) }).toString());
    expect(ours.inertia).toBeCloseTo(out.inertia, 8);
  });
});
