import type { Dataset } from '../../data/dataset.js';
import { Rng } from '../../random/rng.js';
import { mse } from '../../nn/loss.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { Trainer } from '../../train/trainer.js';
import type { Group } from '../../symmetry/group/group.js';
import { parseRep } from '../../symmetry/group/parse-rep.js';
import { repMatrix } from '../../symmetry/group/rep.js';

/** An EMLP-style benchmark: a symmetry, data generated in code, an equivariant model and a plain MLP. */
export interface BenchmarkTask {
  readonly name: string;
  group(): Group;
  readonly repIn: string;
  readonly repOut: string;
  data(N: number, seed: number): Dataset;
  emlp(): Para;
  mlp(): Para;
}

export interface BenchmarkRow {
  n: number;
  model: 'emlp' | 'mlp';
  parameters: number;
  testMSE: number;
  /** Test MSE divided by the variance of the test targets. */
  relativeMSE: number;
  equivarianceError: number;
  seconds: number;
}

export interface BenchmarkOptions {
  sizes?: number[];
  test?: number;
  steps?: number;
  batch?: number;
  lr?: number;
  seed?: number;
  onRow?: (r: BenchmarkRow) => void;
}

/**
 * Equivariance error of a trained model: mean over samples and random g ∈ G of
 * ‖f(ρ_in(g)x) − ρ_out(g)f(x)‖ / ‖ρ_out(g)f(x)‖.
 */
export function modelEquivarianceError(f: Para, theta: readonly Tensor[], G: Group, repIn: string, repOut: string, x: Tensor, rng: Rng, samples = 3): number {
  const rin = parseRep(repIn),
    rout = parseRep(repOut);
  const nIn = x.size / x.batch,
    B = x.batch;
  const fx = f.run(theta, x);
  const nOut = fx.size / B;
  let total = 0;
  for (let k = 0; k < samples; k++) {
    const g = G.sample(rng);
    const Ri = repMatrix(rin, g),
      Ro = repMatrix(rout, g);
    const gx = Tensor.zeros(x.shape);
    for (let b = 0; b < B; b++)
      for (let i = 0; i < nIn; i++) {
        let s = 0;
        for (let j = 0; j < nIn; j++) s += Ri.data[i * nIn + j]! * x.data[b * nIn + j]!;
        gx.data[b * nIn + i] = s;
      }
    const fgx = f.run(theta, gx);
    for (let b = 0; b < B; b++) {
      let num = 0,
        den = 0;
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

/**
 * The experiment of EMLP's §7: the equivariant model and the plain MLP on growing training
 * sets, each trained with Adam for the same number of steps; held-out MSE and the
 * equivariance error under random group elements.
 */
export function benchmarkExperiment(task: BenchmarkTask, opts: BenchmarkOptions = {}): BenchmarkRow[] {
  const sizes = opts.sizes ?? [30, 100, 300, 1000];
  const seed = opts.seed ?? 0,
    steps = opts.steps ?? 1500,
    batch = opts.batch ?? 32,
    lr = opts.lr ?? 1e-2;
  const test = task.data(opts.test ?? 500, seed + 1000);
  let mean = 0,
    sq = 0;
  for (const v of test.y.data) {
    mean += v;
    sq += v * v;
  }
  mean /= test.y.size;
  const variance = sq / test.y.size - mean * mean;
  const G = task.group();
  const rows: BenchmarkRow[] = [];
  for (const n of sizes) {
    const data = task.data(n, seed + n);
    for (const kind of ['emlp', 'mlp'] as const) {
      const t0 = performance.now();
      const model = kind === 'emlp' ? task.emlp() : task.mlp();
      const b = Math.min(batch, n);
      const trainer = new Trainer(model, data, { loss: mse, optimizer: 'adam', lr, batch: b, seed });
      const epochs = Math.max(1, Math.round((steps * b) / n));
      for (let e = 0; e < epochs; e++) trainer.runEpoch();
      const testMSE = trainer.evaluate(test).loss;
      const row: BenchmarkRow = {
        n,
        model: kind,
        parameters: trainer.theta.reduce((s, t) => s + t.size, 0),
        testMSE,
        relativeMSE: testMSE / variance,
        equivarianceError: modelEquivarianceError(
          trainer.model,
          trainer.theta,
          G,
          task.repIn,
          task.repOut,
          test.x.rows(0, Math.min(100, test.x.batch)),
          new Rng(seed + 7),
        ),
        seconds: (performance.now() - t0) / 1000,
      };
      opts.onRow?.(row);
      rows.push(row);
    }
  }
  return rows;
}
