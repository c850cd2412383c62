import { RangeArgError } from '../errors.js';
import type { Dataset } from '../data/dataset.js';
import { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';

export interface SetTaskOptions {
  /** Number of sets. */
  count: number;
  /** Slots per set (the largest set size); default 12. */
  maxSize?: number;
  /** Smallest set size; default 1 for disc-majority, 2 for close-pair (0 allows empty sets). */
  minSize?: number;
  /** The task's radius (see each task). */
  radius?: number;
  seed?: number | Rng;
}

/**
 * Sets of 2-D points as a masked-set data set: `count` sets of between minSize and maxSize
 * points drawn by `point`, labelled by `label` (a function of the set, never of its order).
 * x is [count, maxSize, 3] — (x₁, x₂, mask) per slot, present points first in the order
 * drawn, padding slots all zero; y is [count, 1].
 */
function makeSets(
  name: string,
  opts: SetTaskOptions,
  minDefault: number,
  point: (rng: Rng) => [number, number],
  label: (pts: [number, number][]) => number,
): Dataset {
  const n = opts.maxSize ?? 12,
    lo = opts.minSize ?? minDefault,
    N = opts.count;
  if (!(Number.isInteger(N) && N > 0)) throw new RangeArgError(`set task: count must be a positive integer, got ${N}`);
  if (!(Number.isInteger(n) && n > 0 && Number.isInteger(lo) && lo >= 0 && lo <= n)) {
    throw new RangeArgError(`set task: need 0 ≤ minSize ≤ maxSize, maxSize ≥ 1; got minSize ${lo}, maxSize ${n}`);
  }
  const rng = typeof opts.seed === 'object' ? opts.seed : new Rng(opts.seed ?? 0);
  const x = Tensor.zeros([N, n, 3]);
  const labels = new Int32Array(N);
  for (let s = 0; s < N; s++) {
    const size = lo + rng.int(n - lo + 1);
    const pts: [number, number][] = [];
    for (let i = 0; i < size; i++) {
      const pt = point(rng);
      pts.push(pt);
      x.data.set([pt[0], pt[1], 1], (s * n + i) * 3);
    }
    labels[s] = label(pts);
  }
  return { name, x, y: Tensor.of(labels, [N, 1]), labels, classes: ['0', '1'], featureNames: ['x1', 'x2', 'mask'] };
}

/**
 * The disc-majority task: 1..12 points uniform in [−2,2]²; label 1 when strictly more than
 * half of them lie inside the disc of radius r (default √(8/π) ≈ 1.596, so a point falls
 * inside with probability ½). The label depends on every point but only through a sum of
 * per-point terms — a natural job for ρ(mean φ(x)) with φ(x) ≈ 1[|x| < r].
 */
export function discMajoritySets(opts: SetTaskOptions): Dataset {
  const r = opts.radius ?? Math.sqrt(8 / Math.PI);
  return makeSets(
    'disc-majority-sets',
    opts,
    1,
    (rng) => [4 * rng.uniform() - 2, 4 * rng.uniform() - 2],
    (pts) => {
      const inside = pts.filter(([p, q]) => p * p + q * q < r * r).length;
      return 2 * inside > pts.length ? 1 : 0;
    },
  );
}

/**
 * The close-pair task: 2..12 points uniform in [0,1]²; label 1 when two of them are closer
 * than r (default 0.1). The label is a function of pairs, not of single points, so a
 * DeepSets model has to encode pairwise information through Σ φ(x) — possible in
 * principle (Zaheer et al. 2017, Thm 2), hard in practice; the set size alone predicts it
 * partly (more points, more pairs).
 */
export function closePairSets(opts: SetTaskOptions): Dataset {
  const r = opts.radius ?? 0.1;
  return makeSets(
    'close-pair-sets',
    opts,
    2,
    (rng) => [rng.uniform(), rng.uniform()],
    (pts) => {
      for (let i = 0; i < pts.length; i++) {
        for (let j = i + 1; j < pts.length; j++) if (Math.hypot(pts[i]![0] - pts[j]![0], pts[i]![1] - pts[j]![1]) < r) return 1;
      }
      return 0;
    },
  );
}

/** The set sizes of a batch of masked sets [B, n, d+1]. */
export function setSizes(x: Tensor): Int32Array {
  const B = x.batch,
    n = x.shape[1]!,
    w = x.shape[2]!;
  const out = new Int32Array(B);
  for (let b = 0; b < B; b++) for (let i = 0; i < n; i++) if (x.data[(b * n + i) * w + w - 1]! > 0.5) out[b]!++;
  return out;
}
