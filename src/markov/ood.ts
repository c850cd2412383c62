import type { Dataset } from '../data/dataset.js';
import { featureStats, standardize } from '../data/dataset.js';
import type { Split } from '../data/dataset.js';
import { Tensor } from '../tensor/tensor.js';
import { Rng } from '../random/rng.js';

/**
 * A 1-D regression with a gap in the training inputs: x ~ U([−4,−2] ∪ [2,4]), y = sin(x) + ε,
 * ε ~ N(0, noise²). Nothing is observed in (−2, 2): a model that knows what it does not know
 * is less certain there and beyond |x| > 4.
 */
export function gapRegression(n = 64, noise = 0.1, seed: number | Rng = 0): Dataset {
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const x = Tensor.zeros([n, 1]),
    y = Tensor.zeros([n, 1]);
  for (let i = 0; i < n; i++) {
    const side = i % 2 === 0 ? -1 : 1;
    const v = side * (2 + 2 * rng.uniform());
    x.data[i] = v;
    y.data[i] = Math.sin(v) + noise * rng.normal();
  }
  return { name: 'gap-regression', x, y, featureNames: ['x'] };
}

/** Probe inputs for gapRegression: near the data (inside the training ranges), in the gap, and beyond. */
export function gapProbes(): { near: Tensor; gap: Tensor; beyond: Tensor } {
  const grid = (pts: number[]): Tensor => Tensor.of(pts, [pts.length, 1]);
  const lin = (a: number, b: number, n: number): number[] => Array.from({ length: n }, (_, i) => a + ((b - a) * i) / (n - 1));
  return {
    near: grid([...lin(-3.8, -2.2, 9), ...lin(2.2, 3.8, 9)]),
    gap: grid(lin(-1, 1, 9)),
    beyond: grid([...lin(-6, -5, 5), ...lin(5, 6, 5)]),
  };
}

/**
 * Inputs away from the data: points drawn uniformly from the training inputs' bounding box
 * widened by `widen` box-widths on every side, kept when their Euclidean distance to every
 * training input is at least `minDist` (in the units of x; use standardised inputs).
 */
export function awayFromData(trainX: Tensor, n: number, seed: number | Rng = 0, opts: { minDist?: number; widen?: number } = {}): Tensor {
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const N = trainX.batch,
    d = trainX.size / N;
  const minDist = opts.minDist ?? 1,
    widen = opts.widen ?? 0.5;
  const lo = new Float64Array(d).fill(Infinity),
    hi = new Float64Array(d).fill(-Infinity);
  for (let i = 0; i < N; i++)
    for (let j = 0; j < d; j++) {
      lo[j] = Math.min(lo[j]!, trainX.data[i * d + j]!);
      hi[j] = Math.max(hi[j]!, trainX.data[i * d + j]!);
    }
  const out = Tensor.zeros([n, d]);
  const p = new Float64Array(d);
  let found = 0;
  for (let tries = 0; found < n && tries < 1000 * n; tries++) {
    for (let j = 0; j < d; j++) {
      const w = hi[j]! - lo[j]!;
      p[j] = lo[j]! - widen * w + (1 + 2 * widen) * w * rng.uniform();
    }
    let near = false;
    for (let i = 0; i < N && !near; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += (p[j]! - trainX.data[i * d + j]!) ** 2;
      if (s < minDist * minDist) near = true;
    }
    if (!near) out.data.set(p, found++ * d);
  }
  return found === n ? out : out.rows(0, found);
}

/** Standardises a split with the training rows' statistics. */
export function standardizeSplit(split: Split): Split {
  const stats = featureStats(split.train.x);
  return { train: standardize(split.train, stats), test: standardize(split.test, stats) };
}
