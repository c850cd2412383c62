import type { Dataset } from '../../data/dataset.js';
import { RangeArgError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import { dense } from '../../nn/dense.js';
import { elementwise } from '../../nn/activation.js';
import { seq } from '../../para/composite.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { benchmarkExperiment } from './benchmark.js';
import type { BenchmarkOptions, BenchmarkRow, BenchmarkTask } from './benchmark.js';
import { O } from '../../symmetry/group/group.js';
import { emlp } from '../../nn/equivariant/gated.js';

/** EMLP's inertia task (Finzi et al. 2021 §7.1): 5 point masses in R³, input rep 5T(0)+5V, output T(2). */
export const INERTIA = { points: 5, repIn: '5T(0)+5V', repOut: 'T(2)' } as const;

/**
 * N random systems of point masses: masses m_i = softplus(z), positions x_i ~ N(0, I₃), and
 * their inertia tensor I = Σ_i m_i (|x_i|² I₃ − x_i x_iᵀ), flattened row-major.
 * Rows of x are [m₁…m₅, x₁, …, x₅] (the layout of 5T(0)+5V).
 */
export function inertiaData(N: number, seed: number | Rng = 0, points: number = INERTIA.points): Dataset {
  if (!(Number.isInteger(N) && N > 0)) throw new RangeArgError(`inertia: the number of systems must be a positive integer, got ${N}`);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const nin = 4 * points;
  const x = Tensor.zeros([N, nin]),
    y = Tensor.zeros([N, 9]);
  for (let s = 0; s < N; s++) {
    const X = x.data.subarray(s * nin, (s + 1) * nin),
      Y = y.data.subarray(s * 9, (s + 1) * 9);
    for (let i = 0; i < points; i++) X[i] = Math.log1p(Math.exp(rng.normal()));
    for (let i = 0; i < 3 * points; i++) X[points + i] = rng.normal();
    for (let i = 0; i < points; i++) {
      const m = X[i]!,
        p = X.subarray(points + 3 * i, points + 3 * i + 3);
      const r2 = p[0]! ** 2 + p[1]! ** 2 + p[2]! ** 2;
      for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) Y[a * 3 + b]! += m * ((a === b ? r2 : 0) - p[a]! * p[b]!);
    }
  }
  return { name: 'inertia', x, y };
}

/** The equivariant model of the experiment: EMLP over O(3) with a bilinear layer (T(2) needs products of vectors). */
export function inertiaEMLP(hidden = '8T(0)+8V'): Para {
  return emlp(O(3), INERTIA.repIn, hidden, INERTIA.repOut, 1, { bilinear: true });
}

/** The baseline: a plain MLP 20 → h → h → 9 with ReLU. */
export function inertiaMLP(h = 16): Para {
  return seq(dense(4 * INERTIA.points, h), elementwise('relu'), dense(h, h), elementwise('relu'), dense(h, 9));
}

/** The inertia task as a benchmark: O(3), 5T(0)+5V → T(2). */
export const inertiaTask: BenchmarkTask = {
  name: 'inertia',
  group: () => O(3),
  repIn: INERTIA.repIn,
  repOut: INERTIA.repOut,
  data: (N, seed) => inertiaData(N, seed),
  emlp: () => inertiaEMLP(),
  mlp: () => inertiaMLP(),
};

/** The inertia experiment (see `benchmarkExperiment`). */
export function inertiaExperiment(opts: BenchmarkOptions = {}): BenchmarkRow[] {
  return benchmarkExperiment(inertiaTask, opts);
}
