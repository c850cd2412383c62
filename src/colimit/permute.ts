import { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';

/**
 * The action of the symmetric group on a batch of sets [B, n, …]: each sample's n
 * elements are reordered by its own permutation (a seeded uniform draw per sample,
 * padding slots included). Returns a new tensor.
 */
export function permuteSets(x: Tensor, seed: number | Rng): Tensor {
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const B = x.batch,
    n = x.shape[1]!,
    e = x.size / (B * n);
  const out = Tensor.zeros(x.shape, x.dtype);
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  for (let b = 0; b < B; b++) {
    for (let i = 0; i < n; i++) perm[i] = i;
    rng.shuffle(perm);
    for (let i = 0; i < n; i++) out.data.set(x.data.subarray((b * n + perm[i]!) * e, (b * n + perm[i]! + 1) * e), (b * n + i) * e);
  }
  return out;
}

/**
 * The permutation-invariance defect of a model on sets: the mean over samples and
 * `trials` random permutations of max |f(πx) − f(x)| over the outputs (after `post`,
 * e.g. the sigmoid, when given). 0 for a morphism that factors through the colimit.
 */
export function invarianceDefect(f: (x: Tensor) => Tensor, x: Tensor, opts: { trials?: number; seed?: number; post?: (v: number) => number } = {}): number {
  const rng = new Rng(opts.seed ?? 0);
  const trials = opts.trials ?? 5;
  const post = opts.post ?? ((v: number) => v);
  const y0 = f(x);
  const per = y0.size / y0.batch;
  let total = 0;
  for (let t = 0; t < trials; t++) {
    const y = f(permuteSets(x, rng));
    for (let b = 0; b < y0.batch; b++) {
      let worst = 0;
      for (let j = 0; j < per; j++) worst = Math.max(worst, Math.abs(post(y.data[b * per + j]!) - post(y0.data[b * per + j]!)));
      total += worst;
    }
  }
  return total / (trials * y0.batch);
}
