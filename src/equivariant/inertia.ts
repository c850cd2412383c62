import type { Dataset } from '../data/dataset.js';
import { RangeArgError } from '../errors.js';
import { Rng } from '../markov/rng.js';
import { dense } from '../nn/dense.js';
import { elementwise } from '../nn/activation.js';
import { mse } from '../nn/loss.js';
import { seq } from '../para/category.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import { Trainer } from '../train/trainer.js';
import { O } from './group.js';
import type { Group } from './group.js';
import { emlp } from './gated.js';
import { parseRep } from './parse-rep.js';
import { repMatrix } from './rep.js';

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
  const x = Tensor.zeros([N, nin]), y = Tensor.zeros([N, 9]);
  for (let s = 0; s < N; s++) {
    const X = x.data.subarray(s * nin, (s + 1) * nin), Y = y.data.subarray(s * 9, (s + 1) * 9);
    for (let i = 0; i < points; i++) X[i] = Math.log1p(Math.exp(rng.normal()));
    for (let i = 0; i < 3 * points; i++) X[points + i] = rng.normal();
    for (let i = 0; i < points; i++) {
      const m = X[i]!, p = X.subarray(points + 3 * i, points + 3 * i + 3);
      const r2 = p[0]! ** 2 + p[1]! ** 2 + p[2]! ** 2;
      for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) Y[a * 3 + b] += m * ((a === b ? r2 : 0) - p[a]! * p[b]!);
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

/**
 * Equivariance error of a trained model: mean over samples and random g ∈ G of
 * ‖f(ρ_in(g)x) − ρ_out(g)f(x)‖ / ‖ρ_out(g)f(x)‖.
 */
export function modelEquivarianceError(f: Para, theta: readonly Tensor[], G: Group, repIn: string, repOut: string, x: Tensor, rng: Rng, samples = 3): number {
  const rin = parseRep(repIn), rout = parseRep(repOut);
  const nIn = x.size / x.batch, B = x.batch;
  const fx = f.run(theta, x);
  const nOut = fx.size / B;
  let total = 0;
  for (let k = 0; k < samples; k++) {
    const g = G.sample(rng);
    const Ri = repMatrix(rin, g), Ro = repMatrix(rout, g);
    const gx = Tensor.zeros(x.shape);
    for (let b = 0; b < B; b++) for (let i = 0; i < nIn; i++) { let s = 0; for (let j = 0; j < nIn; j++) s += Ri.data[i * nIn + j]! * x.data[b * nIn + j]!; gx.data[b * nIn + i] = s; }
    const fgx = f.run(theta, gx);
    for (let b = 0; b < B; b++) {
      let num = 0, den = 0;
      for (let i = 0; i < nOut; i++) {
        let s = 0;
        for (let j = 0; j < nOut; j++) s += Ro.data[i * nOut + j]! * fx.data[b * nOut + j]!;
        num += (fgx.data[b * nOut + i]! - s) ** 2;
        den += s * s;
      }
      total += Math.sqrt(num / Math.max(den, 1e-30));
    }
  }
  return total / (samples * B);
}

export interface InertiaRow {
  n: number;
  model: 'emlp' | 'mlp';
  parameters: number;
  testMSE: number;
  /** Test MSE divided by the variance of the test targets. */
  relativeMSE: number;
  equivarianceError: number;
  seconds: number;
}

export interface InertiaOptions {
  sizes?: number[];
  test?: number;
  steps?: number;
  batch?: number;
  lr?: number;
  seed?: number;
  onRow?: (r: InertiaRow) => void;
}

/**
 * The experiment: EMLP vs MLP on growing training sets, each trained with Adam for the same
 * number of steps; held-out MSE and equivariance error under random O(3) elements.
 */
export function inertiaExperiment(opts: InertiaOptions = {}): InertiaRow[] {
  const sizes = opts.sizes ?? [30, 100, 300, 1000];
  const seed = opts.seed ?? 0, steps = opts.steps ?? 1500, batch = opts.batch ?? 32, lr = opts.lr ?? 3e-3;
  const test = inertiaData(opts.test ?? 500, seed + 1000);
  let mean = 0, sq = 0;
  for (const v of test.y.data) { mean += v; sq += v * v; }
  mean /= test.y.size;
  const variance = sq / test.y.size - mean * mean;
  const rows: InertiaRow[] = [];
  for (const n of sizes) {
    const data = inertiaData(n, seed + n);
    for (const kind of ['emlp', 'mlp'] as const) {
      const t0 = performance.now();
      const model = kind === 'emlp' ? inertiaEMLP() : inertiaMLP();
      const b = Math.min(batch, n);
      const trainer = new Trainer(model, data, { loss: mse, optimizer: 'adam', lr, batch: b, seed });
      const epochs = Math.max(1, Math.round((steps * b) / n));
      for (let e = 0; e < epochs; e++) trainer.runEpoch();
      const testMSE = trainer.evaluate(test).loss;
      const row: InertiaRow = {
        n, model: kind,
        parameters: trainer.theta.reduce((s, t) => s + t.size, 0),
        testMSE, relativeMSE: testMSE / variance,
        equivarianceError: modelEquivarianceError(trainer.model, trainer.theta, O(3), INERTIA.repIn, INERTIA.repOut, test.x.rows(0, 100), new Rng(seed + 7)),
        seconds: (performance.now() - t0) / 1000,
      };
      opts.onRow?.(row);
      rows.push(row);
    }
  }
  return rows;
}
