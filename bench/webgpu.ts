/**
 * paralens on its webgpu backend, for `npm run bench` (a few rows, labelled with the adapter)
 * and bench/gpu.ts (the GPU workloads at GPU sizes). Everything is resident on the device:
 * the matmul operands are device arrays and a sample is timed until the device has finished
 * (DeviceMemory.done); training runs DeviceTrainer epochs, which read back only their
 * statistics. On SwiftShader (a CPU emulation) the numbers say nothing about GPUs: the rows
 * are marked `emulated` and kept out of the speed-up tables.
 */
import { softmaxCrossEntropy } from '../src/nn/loss.js';
import { parseSpec } from '../src/spec/index.js';
import { setBackend, backend } from '../src/tensor/registry.js';
import type { Backend } from '../src/tensor/backend.js';
import { createWebGpuBackend } from '../src/tensor/webgpu/backend.js';
import type { WebGpuBackend } from '../src/tensor/webgpu/backend.js';
import { DeviceTrainer } from '../src/train/device-trainer.js';
import { Trainer } from '../src/train/trainer.js';
import { CNN_SPEC, MLP_SPEC, syntheticData } from './paralens.js';
import { fill, median, names } from './workloads.js';
import type { Measurement } from './workloads.js';

export interface GpuWorkloads {
  matmulSizes: number[];
  mlp: { batch: number; steps: number };
  cnn: { batch: number; steps: number };
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
  const dev = be.device, a = dev.alloc(n * n), b = dev.alloc(n * n), c = dev.alloc(n * n);
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

/** Samples/s of SGD epochs of `steps` minibatches on the device, after a warm-up epoch. */
async function timeTraining(be: WebGpuBackend, spec: string, shape: number[], batch: number, steps: number, repeats: number): Promise<number[]> {
  const data = syntheticData(batch * steps, shape, 3);
  const dt = new DeviceTrainer(new Trainer(parseSpec(spec), data, { loss: softmaxCrossEntropy, batch, lr: 0.01, optimizer: 'sgd', seed: 0 }), be.device);
  await dt.runEpoch();
  const out: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t = performance.now();
    await dt.runEpoch();
    out.push((batch * steps) / ((performance.now() - t) / 1000));
  }
  return out;
}

/** The workloads on `be`, as Measurements (emulated ones flagged); failures are logged and listed in `skipped`. */
export async function benchWebGpu(be: WebGpuBackend, w: GpuWorkloads, skipped: string[], log: (s: string) => void): Promise<Measurement[]> {
  const system = gpuSystem(be), out: Measurement[] = [];
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
    await add(names.mlp(w.mlp.batch), 'samples/s', () => timeTraining(be, MLP_SPEC, [784], w.mlp.batch, w.mlp.steps, w.repeats));
    await add(names.conv(w.cnn.batch), 'samples/s', () => timeTraining(be, CNN_SPEC, [1, 28, 28], w.cnn.batch, w.cnn.steps, w.repeats));
  } finally {
    setBackend(previous);
  }
  return out;
}
