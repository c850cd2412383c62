/** paralens's side of `npm run bench`: the workloads of bench/workloads.ts on one registered backend. */
import { xor as xorData } from '../src/data/generated.js';
import type { Dataset } from '../src/data/dataset.js';
import { oneHot } from '../src/data/dataset.js';
import { mse, softmaxCrossEntropy, tokenCrossEntropy } from '../src/nn/loss.js';
import { parseSpec } from '../src/catalogue/index.js';
import { allocFloat32, backend, setBackend } from '../src/tensor/registry.js';
import { Tensor } from '../src/tensor/tensor.js';
import { Trainer } from '../src/train/trainer.js';
import { nbodySpec } from '../src/experiments/equivariant/nbody.js';
import type { Loss } from '../src/nn/loss.js';
import { charLstmSpec, charTransformerSpec, derivedAttentionPositions, fill, names, ratesAfterWarmUp, recorder, tokenWindows } from './workloads.js';
import type { BenchConfig, CharTransformerConfig, Measurement } from './workloads.js';

export const MLP_SPEC = 'dense(784,256) >> relu >> dense(256,256) >> relu >> dense(256,10)';
export const CNN_SPEC = 'conv2d(1,8,3,1,1) >> relu >> maxpool2d(2) >> conv2d(8,16,3,1,1) >> relu >> maxpool2d(2) >> flatten >> dense(784,10)';

/** Random inputs of the given per-sample shape and random one-hot targets over 10 classes. */
export function syntheticData(n: number, shape: number[], seed: number): Dataset {
  const per = shape.reduce((a, b) => a * b, 1);
  const x = new Tensor(fill(n * per, seed), [n, ...shape]);
  const labels = Int32Array.from({ length: n }, (_, i) => (i * 7 + seed) % 10);
  return { name: 'synthetic', x, y: oneHot(labels, 10), labels };
}

/**
 * Median GFLOP/s of backend().gemm on n×n×n, each sample calibrated to ≥ `seconds` of work.
 * The operands are made before timing where the backend keeps its arrays (allocFloat32: in
 * wasm memory on 'wasm'), as TF.js's are tensors made before timing.
 */
export function timeMatmul(n: number, cfg: BenchConfig): number[] {
  const a = allocFloat32(n * n),
    b = allocFloat32(n * n),
    c = allocFloat32(n * n);
  a.set(fill(n * n, 1));
  b.set(fill(n * n, 2));
  const be = backend();
  be.gemm(false, false, n, n, n, a, b, c, false);
  let t = performance.now();
  be.gemm(false, false, n, n, n, a, b, c, false);
  const reps = Math.max(1, Math.ceil(cfg.matmulSeconds / Math.max(1e-6, (performance.now() - t) / 1000)));
  const out: number[] = [];
  for (let r = 0; r < cfg.repeats; r++) {
    t = performance.now();
    for (let i = 0; i < reps; i++) be.gemm(false, false, n, n, n, a, b, c, false);
    out.push((2 * n ** 3 * reps) / ((performance.now() - t) / 1000) / 1e9);
  }
  return out;
}

/** Samples/s of `steps` SGD steps at `batch` (one epoch of a batch·steps-row set), after one warm-up epoch. */
export function timeTraining(spec: string, shape: number[], batch: number, steps: number, lr: number, loss: Loss, cfg: BenchConfig): number[] {
  const data = syntheticData(batch * steps, shape, 3);
  return epochRates(new Trainer(parseSpec(spec), data, { loss, batch, lr, optimizer: 'sgd', seed: 0 }), batch * steps, cfg);
}

/** Items per second of whole epochs (`items` each), timed after one warm-up epoch. */
function epochRates(trainer: Trainer, items: number, cfg: BenchConfig): number[] {
  return ratesAfterWarmUp(() => trainer.runEpoch(), items, cfg);
}

/** Wall seconds of seed 000's XOR run: build 2-4-4-1 sigmoid, then `epochs` full-batch SGD steps on MSE. */
export function timeXor(cfg: BenchConfig): number[] {
  const run = (): number => {
    const t = performance.now();
    const trainer = new Trainer(parseSpec('dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid'), xorData(), {
      loss: mse,
      lr: cfg.xor.lr,
      batch: 4,
      shuffle: false,
      seed: 0,
    });
    for (let e = 0; e < cfg.xor.epochs; e++) trainer.runEpoch();
    return (performance.now() - t) / 1000;
  };
  run();
  return Array.from({ length: cfg.repeats }, run);
}

/** The char transformer's (and the char LSTM's) data: batch·steps windows of synthetic ids (x [N, T]) and their next ids (y [N, T]). */
export function charWindows(c: Pick<CharTransformerConfig, 'vocab' | 'context' | 'batch' | 'steps'>): Dataset {
  const T = c.context,
    N = c.batch * c.steps;
  const ids = tokenWindows(N, c, 11);
  const x = Tensor.zeros([N, T]),
    y = Tensor.zeros([N, T]);
  for (let i = 0; i < N; i++) {
    x.data.set(ids.subarray(i * (T + 1), i * (T + 1) + T), i * T);
    y.data.set(ids.subarray(i * (T + 1) + 1, (i + 1) * (T + 1)), i * T);
  }
  return { name: 'windows', x, y };
}

/**
 * Tokens/s of the char transformer: `steps` Adam steps over batches of pre-made windows (one
 * epoch of batch·steps windows), after one warm-up epoch.
 */
export function timeCharTransformer(cfg: BenchConfig): number[] {
  const c = cfg.charTransformer,
    T = c.context,
    N = c.batch * c.steps;
  return epochRates(
    new Trainer(parseSpec(charTransformerSpec(c)).at([T]), charWindows(c), { loss: tokenCrossEntropy, batch: c.batch, lr: c.lr, optimizer: 'adam', seed: 0 }),
    N * T,
    cfg,
  );
}

/**
 * Tokens/s of the char LSTM (issue 30's row; with `cell` 'mgu', the char MGU row): `steps` Adam
 * steps over batches of pre-made windows (the state is not carried across them: the speed is the
 * same), after a warm-up epoch.
 */
export function timeCharLstm(cfg: BenchConfig, cell: 'lstm' | 'mgu' = 'lstm'): number[] {
  const c = cfg.charLstm,
    T = c.context;
  return epochRates(
    new Trainer(parseSpec(charLstmSpec(c, cell)).at([T]), charWindows(c), { loss: tokenCrossEntropy, batch: c.batch, lr: c.lr, optimizer: 'adam', seed: 0 }),
    c.batch * c.steps * T,
    cfg,
  );
}

/**
 * Clouds/s of SEGNN on N-body-sized point clouds (e3_conv, a composite of lenses: its speed is
 * that of its tensor products and of the copies its composition makes), Adam, one epoch of
 * synthetic clouds after one warm-up epoch.
 */
export function timeSegnn(cfg: BenchConfig): number[] {
  const { clouds, batch, lr } = cfg.segnn;
  const model = parseSpec(nbodySpec('segnn'));
  const data = { name: 'clouds', x: new Tensor(fill(clouds * 5 * 11, 5), [clouds, 5, 11]), y: new Tensor(fill(clouds * 5 * 3, 6), [clouds, 5, 3]) };
  return epochRates(new Trainer(model, data, { loss: mse, batch, lr, optimizer: 'adam', seed: 0 }), clouds, cfg);
}

/** Every workload on the backend registered as `name`; `system` labels the rows. */
export function benchParalens(name: string, system: string, cfg: BenchConfig, skipped: string[], log: (s: string) => void): Measurement[] {
  const previous = backend();
  setBackend(name);
  const out: Measurement[] = [];
  const add = recorder(system, out, skipped, log, cfg.only);
  try {
    for (const n of cfg.matmulSizes) add(names.matmul(n), 'GFLOP/s', () => timeMatmul(n, cfg));
    for (const { batch, steps } of cfg.mlp.runs)
      add(names.mlp(batch), 'samples/s', () => timeTraining(MLP_SPEC, [784], batch, steps, cfg.mlp.lr, softmaxCrossEntropy, cfg));
    add(names.conv(cfg.conv.batch), 'samples/s', () =>
      timeTraining(CNN_SPEC, [1, 28, 28], cfg.conv.batch, cfg.conv.steps, cfg.conv.lr, softmaxCrossEntropy, cfg),
    );
    add(names.xor(cfg.xor.epochs), 's', () => timeXor(cfg));
    add(names.charTransformer(cfg.charTransformer), 'tokens/s', () => timeCharTransformer(cfg));
    add(names.charLstm(cfg.charLstm), 'tokens/s', () => timeCharLstm(cfg));
    add(names.charMgu(cfg.charLstm), 'tokens/s', () => timeCharLstm(cfg, 'mgu'));
    add(names.segnn(cfg.segnn.batch), 'samples/s', () => timeSegnn(cfg));
    for (const pos of derivedAttentionPositions(cfg.charTransformer))
      add(names.derivedAttention(cfg.charTransformer, pos), 'tokens/s', () =>
        timeCharTransformer({ ...cfg, charTransformer: { ...cfg.charTransformer, pos } }),
      );
  } finally {
    setBackend(previous);
  }
  return out;
}
