/**
 * An imported model beside the same model built from its spec: the MLP and CNN of `npm run bench`
 * (bench/paralens.ts) exported to ONNX and imported back — once with the rewrites (the named
 * layers recovered: the target is at most 1.1× the spec-built time per step) and once as
 * operators only (every node an operator lens, on the backend's kernels where one fits) —
 * trained by SGD at batch 128 on synthetic data, samples per second after a warm-up epoch.
 *
 *   node --experimental-wasm-relaxed-simd dist/bench/onnx-import.js [--quick] [--json]
 */
import { importOnnx } from '../src/io/onnx/import.js';
import { exportOnnx } from '../src/io/onnx/export.js';
import { parseSpec } from '../src/catalogue/index.js';
import { softmaxCrossEntropy } from '../src/nn/loss.js';
import type { Para } from '../src/para/para.js';
import { loadWasmBackend } from '../src/tensor/wasm-backend.js';
import { backend, setBackend } from '../src/tensor/registry.js';
import type { Tensor } from '../src/tensor/tensor.js';
import { Trainer } from '../src/train/trainer.js';
import { CNN_SPEC, MLP_SPEC, syntheticData } from './paralens.js';
import { benchConfig, ratesAfterWarmUp } from './workloads.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const cfg = benchConfig(quick);
const batch = 128,
  steps = quick ? 2 : 20;

interface Row {
  readonly workload: string;
  readonly model: string;
  readonly samplesPerSecond: number;
}

/** Median samples/s of SGD epochs of `model` from θ. */
function rate(model: Para, theta: Tensor[], shape: number[]): number {
  const data = syntheticData(batch * steps, shape, 3);
  const trainer = new Trainer(model, data, { loss: softmaxCrossEntropy, batch, lr: 0.01, optimizer: 'sgd', seed: 0, theta });
  const rates = ratesAfterWarmUp(() => trainer.runEpoch(), batch * steps, cfg);
  return [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)]!;
}

async function main(): Promise<void> {
  await loadWasmBackend()
    .then((b) => setBackend(b))
    .catch(() => undefined);
  const rows: Row[] = [];
  for (const [name, spec, shape] of [
    ['MLP 784-256-256-10', MLP_SPEC, [784]],
    ['CNN', CNN_SPEC, [1, 28, 28]],
  ] as const) {
    const built = parseSpec(spec).at([...shape]);
    const theta = built.init(1);
    const bytes = exportOnnx(built, theta);
    const layers = importOnnx(bytes);
    const ops = importOnnx(bytes, { layers: false });
    rows.push({ workload: name, model: `spec: ${built}`, samplesPerSecond: rate(built, theta, [...shape]) });
    rows.push({ workload: name, model: `imported: ${layers.model}`, samplesPerSecond: rate(layers.model, layers.theta, [...shape]) });
    rows.push({ workload: name, model: 'imported as operators only', samplesPerSecond: rate(ops.model, ops.theta, [...shape]) });
  }
  if (argv.includes('--json')) process.stdout.write(JSON.stringify({ backend: backend().name, batch, rows }) + '\n');
  else {
    process.stdout.write(`backend ${backend().name}, SGD at batch ${batch}, samples/s (median)${quick ? ' — quick: not a measurement' : ''}\n`);
    for (const r of rows) process.stdout.write(`${r.workload.padEnd(20)} ${r.samplesPerSecond.toFixed(0).padStart(9)}  ${r.model.slice(0, 100)}\n`);
  }
}

await main();
