/**
 * paralens on its webgpu backend, for `npm run bench` (a few rows, labelled with the adapter)
 * and bench/gpu.ts (the GPU workloads at GPU sizes). Everything is resident on the device:
 * the matmul operands are device arrays and a sample is timed until the device has finished
 * (DeviceMemory.done); training runs DeviceTrainer epochs, which read back only their
 * statistics. On SwiftShader (a CPU emulation) the numbers say nothing about GPUs: the rows
 * are marked `emulated` and kept out of the speed-up tables.
 */
import type { Dataset } from '../src/data/dataset.js';
import { softmaxCrossEntropy, tokenCrossEntropy } from '../src/nn/loss.js';
import type { Loss } from '../src/nn/loss.js';
import { parseSpec } from '../src/catalogue/index.js';
import { setBackend, backend } from '../src/tensor/registry.js';
import type { Backend } from '../src/tensor/backend.js';
import { createWebGpuBackend } from '../src/tensor/webgpu/backend.js';
import type { WebGpuBackend } from '../src/tensor/webgpu/backend.js';
import { DeviceTrainer } from '../src/train/device-trainer.js';
import { Trainer } from '../src/train/trainer.js';
import { charWindows, CNN_SPEC, MLP_SPEC, syntheticData } from './paralens.js';
import { charTransformerSpec, fill, median, names } from './workloads.js';
import type { CharTransformerConfig, Measurement } from './workloads.js';

export interface GpuWorkloads {
  matmulSizes: number[];
  mlp: { batch: number; steps: number };
  cnn: { batch: number; steps: number };
  /** The char transformer (bench/workloads.ts), trained with Adam on the device; absent: not run. */
  charTransformer?: CharTransformerConfig;
  repeats: number;
}

/** The system name of the rows: the adapter, and whether it is an emulation. */
export function gpuSystem(be: WebGpuBackend): string {
  return `paralens webgpu (${be.device.emulated ? 'SwiftShader: CPU emulation, not a GPU speed' : be.device.label})`;
}

export async function startWebGpu(log: (s: string) => void): Promise<WebGpuBackend | undefined> {
  try {
    return await createWebGpuBackend();
  } catch (e) {
    log(`skipping paralens webgpu: ${(e as Error).message}`);
    return undefined;
  }
}

/** GFLOP/s of n×n×n products on device arrays, `reps` per sample, timed to the device's completion. */
async function timeMatmul(be: WebGpuBackend, n: number, repeats: number): Promise<number[]> {
  const dev = be.device,
    a = dev.alloc(n * n),
    b = dev.alloc(n * n),
    c = dev.alloc(n * n);
  dev.write(a, fill(n * n, 1));
  dev.write(b, fill(n * n, 2));
  be.gemm(false, false, n, n, n, a, b, c, false);
  let t = performance.now();
  await dev.done();
  be.gemm(false, false, n, n, n, a, b, c, false);
  await dev.done();
  const reps = Math.max(1, Math.ceil(0.5 / Math.max(1e-6, (performance.now() - t) / 1000)));
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) {
    t = performance.now();
    for (let i = 0; i < reps; i++) be.gemm(false, false, n, n, n, a, b, c, false);
    await dev.done();
    out.push((2 * n ** 3 * reps) / ((performance.now() - t) / 1000) / 1e9);
  }
  return out;
}

/** Rows (or, with `perRow`, tokens) per second of epochs of `data` in minibatches on the device, after a warm-up epoch. */
async function timeTraining(
  be: WebGpuBackend,
  spec: string,
  data: Dataset,
  batch: number,
  opts: { loss: Loss; optimizer: string; lr: number; perRow?: number },
  repeats: number,
): Promise<number[]> {
  const dt = new DeviceTrainer(new Trainer(parseSpec(spec), data, { loss: opts.loss, batch, lr: opts.lr, optimizer: opts.optimizer, seed: 0 }), be.device);
  await dt.runEpoch();
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t = performance.now();
    await dt.runEpoch();
    out.push((data.x.batch * (opts.perRow ?? 1)) / ((performance.now() - t) / 1000));
  }
  return out;
}

/** The workloads on `be`, as Measurements (emulated ones flagged); failures are logged and listed in `skipped`. */
export async function benchWebGpu(be: WebGpuBackend, w: GpuWorkloads, skipped: string[], log: (s: string) => void): Promise<Measurement[]> {
  const system = gpuSystem(be),
    out: Measurement[] = [];
  const previous: Backend = backend();
  setBackend(be);
  const add = async (workload: string, unit: Measurement['unit'], measure: () => Promise<number[]>): Promise<void> => {
    try {
      const samples = await measure();
      out.push({ workload, system, value: median(samples), unit, samples, ...(be.device.emulated ? { emulated: true } : {}) });
      log(`  ${system.slice(0, 22).padEnd(22)} ${workload.padEnd(40)} ${median(samples).toPrecision(4)} ${unit}`);
    } catch (e) {
      skipped.push(`${system}: ${workload}: ${(e as Error).message.split('\n')[0]}`);
      log(`  skipping ${workload}: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  try {
    for (const n of w.matmulSizes) await add(names.matmul(n), 'GFLOP/s', () => timeMatmul(be, n, w.repeats));
    const sgd = { loss: softmaxCrossEntropy, optimizer: 'sgd', lr: 0.01 };
    await add(names.mlp(w.mlp.batch), 'samples/s', () =>
      timeTraining(be, MLP_SPEC, syntheticData(w.mlp.batch * w.mlp.steps, [784], 3), w.mlp.batch, sgd, w.repeats),
    );
    await add(names.conv(w.cnn.batch), 'samples/s', () =>
      timeTraining(be, CNN_SPEC, syntheticData(w.cnn.batch * w.cnn.steps, [1, 28, 28], 3), w.cnn.batch, sgd, w.repeats),
    );
    const c = w.charTransformer;
    if (c)
      await add(names.charTransformer(c), 'tokens/s', () =>
        timeTraining(
          be,
          charTransformerSpec(c),
          charWindows(c),
          c.batch,
          { loss: tokenCrossEntropy, optimizer: 'adam', lr: c.lr, perRow: c.context },
          w.repeats,
        ),
      );
  } finally {
    setBackend(previous);
  }
  return out;
}
