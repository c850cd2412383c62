import { RangeArgError } from '../errors.js';
import type { Dataset } from '../data/dataset.js';
import { Rng } from '../markov/rng.js';
import { Tensor } from '../tensor/tensor.js';

export interface SetTaskOptions {
  /** Number of sets. */
  count: number;
  /** Slots per set (the largest set size); default 12. */
  maxSize?: number;
  /** Smallest set size; default 1 (0 allows empty sets). */
  minSize?: number;
  /** Radius of the disc; default √(8/π) ≈ 1.596, so a uniform point of [−2,2]² falls inside with probability ½. */
  radius?: number;
  seed?: number | Rng;
}

/**
 * A set task generated in code: each set has between minSize and maxSize points drawn
 * uniformly from [−2,2]² and its label is 1 when strictly more than half of its points
 * lie inside the disc of the given radius about the origin. The label is a function of
 * the set, not of the order its points are listed in, and it depends on every point —
 * a natural job for ρ(mean φ(x)) with φ(x) ≈ 1[|x| < r].
 *
 * Sets are masked sets (see pool.ts): x is [count, maxSize, 3] — (x₁, x₂, mask) per slot,
 * present points first in a random order, padding slots all zero. y is [count, 1].
 */
export function discMajoritySets(opts: SetTaskOptions): Dataset {
  const n = opts.maxSize ?? 12, lo = opts.minSize ?? 1, N = opts.count;
  if (!(Number.isInteger(N) && N > 0)) throw new RangeArgError(`set task: count must be a positive integer, got ${N}`);
  if (!(Number.isInteger(n) && n > 0 && Number.isInteger(lo) && lo >= 0 && lo <= n)) {
    throw new RangeArgError(`set task: need 0 ≤ minSize ≤ maxSize, maxSize ≥ 1; got minSize ${lo}, maxSize ${n}`);
  }
  const r = opts.radius ?? Math.sqrt(8 / Math.PI);
  const rng = typeof opts.seed === 'object' ? opts.seed : new Rng(opts.seed ?? 0);
  const x = Tensor.zeros([N, n, 3]);
  const labels = new Int32Array(N);
  for (let s = 0; s < N; s++) {
    const size = lo + rng.int(n - lo + 1);
    let inside = 0;
    for (let i = 0; i < size; i++) {
      const p = 4 * rng.uniform() - 2, q = 4 * rng.uniform() - 2;
      const o = (s * n + i) * 3;
      x.data[o] = p;
      x.data[o + 1] = q;
      x.data[o + 2] = 1;
      if (p * p + q * q < r * r) inside++;
    }
    labels[s] = 2 * inside > size ? 1 : 0;
  }
  return { name: 'disc-majority-sets', x, y: Tensor.of(labels, [N, 1]), labels, classes: ['0', '1'], featureNames: ['x1', 'x2', 'mask'] };
}

/** The set sizes of a batch of masked sets [B, n, d+1]. */
export function setSizes(x: Tensor): Int32Array {
  const B = x.batch, n = x.shape[1]!, w = x.shape[2]!;
  const out = new Int32Array(B);
  for (let b = 0; b < B; b++) for (let i = 0; i < n; i++) if (x.data[(b * n + i) * w + w - 1]! > 0.5) out[b]++;
  return out;
}
