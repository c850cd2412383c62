/**
 * An imported model beside the same model built from its spec: the MLP and CNN of `npm run bench`
 * (bench/paralens.ts) exported to ONNX and imported back — once with the rewrites (the named
 * layers recovered: the target is at most 1.1× the spec-built time per step, i.e. a ratio of
 * samples/s of at least 1/1.1) and once as operators only (every node an operator lens, on the
 * backend's kernels where one fits) — trained by SGD on synthetic data from the same weights,
 * samples per second after a warm-up epoch. `npm run bench` runs these rows on the wasm
 * backend (`--skip onnx` leaves them out); alone:
 *
 *   node --experimental-wasm-relaxed-simd dist/bench/onnx-import.js [--quick] [--json]
 */
import { pathToFileURL } from 'node:url';
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
import { benchConfig, median, ratesAfterWarmUp, recorder } from './workloads.js';
import type { BenchConfig, Measurement } from './workloads.js';

const BATCH = 128;

/** The three ways a model is built, as the rows' workload suffixes. */
const BUILT = ['built from its spec', 'imported (layers recovered)', 'imported (operators only)'] as const;

/** The workload name of a model built one way: "ONNX import: MLP 784-256-256-10 train, batch 128 — imported (layers recovered)". */
export const onnxWorkload = (model: string, built: (typeof BUILT)[number]): string => `ONNX import: ${model} train, batch ${BATCH} — ${built}`;

/** Median samples/s of SGD epochs of `model` from θ. */
function rate(model: Para, theta: Tensor[], shape: number[], steps: number, cfg: BenchConfig): number[] {
  const data = syntheticData(BATCH * steps, shape, 3);
  const trainer = new Trainer(model, data, {
    loss: softmaxCrossEntropy,
    batch: BATCH,
    lr: 0.01,
    optimizer: 'sgd',
    seed: 0,
    theta: theta.map((t) => t.clone()),
  });
  return ratesAfterWarmUp(() => trainer.runEpoch(), BATCH * steps, cfg);
}

/** The rows, on the current backend, labelled `system`. */
export function benchOnnxImport(system: string, cfg: BenchConfig, skipped: string[], log: (s: string) => void): Measurement[] {
  const out: Measurement[] = [];
  const add = recorder(system, out, skipped, log, cfg.only);
  const steps = Math.max(2, 4 * cfg.conv.steps); // 20 steps of 128 (12 with --quick)
  for (const [name, spec, shape] of [
    ['MLP 784-256-256-10', MLP_SPEC, [784]],
    ['CNN (2 conv)', CNN_SPEC, [1, 28, 28]],
  ] as const) {
    const built = parseSpec(spec).at([...shape]);
    const theta = built.init(1);
    const bytes = exportOnnx(built, theta);
    const layers = importOnnx(bytes);
    const ops = importOnnx(bytes, { layers: false });
    add(onnxWorkload(name, BUILT[0]), 'samples/s', () => rate(built, theta, [...shape], steps, cfg));
    add(onnxWorkload(name, BUILT[1]), 'samples/s', () => rate(layers.model, layers.theta, [...shape], steps, cfg));
    add(onnxWorkload(name, BUILT[2]), 'samples/s', () => rate(ops.model, ops.theta, [...shape], steps, cfg));
  }
  return out;
}

/** Imported ÷ spec-built samples/s per model (the target: at least 1/1.1 for the layers recovered). */
export function onnxRatios(rows: readonly Measurement[]): { model: string; built: string; ratio: number }[] {
  const out: { model: string; built: string; ratio: number }[] = [];
  for (const r of rows) {
    const hit = /^ONNX import: (.*) train, batch \d+ — (.*)$/.exec(r.workload);
    if (!hit || hit[2] === BUILT[0]) continue;
    const base = rows.find((b) => b.system === r.system && b.workload === onnxWorkload(hit[1]!, BUILT[0]));
    if (base) out.push({ model: hit[1]!, built: hit[2]!, ratio: r.value / base.value });
  }
  return out;
}

async function main(argv: readonly string[]): Promise<void> {
  const quick = argv.includes('--quick');
  await loadWasmBackend()
    .then((b) => setBackend(b))
    .catch(() => undefined);
  const skipped: string[] = [];
  const rows = benchOnnxImport(`paralens ${backend().name}`, benchConfig(quick), skipped, (s) => void process.stderr.write(s + '\n'));
  const ratios = onnxRatios(rows);
  if (argv.includes('--json')) process.stdout.write(JSON.stringify({ backend: backend().name, batch: BATCH, quick, rows, ratios, skipped }) + '\n');
  else {
    process.stdout.write(`backend ${backend().name}, SGD at batch ${BATCH}, samples/s (median)${quick ? ' — quick: not a measurement' : ''}\n`);
    for (const r of rows) process.stdout.write(`${r.workload.padEnd(80)} ${median(r.samples).toFixed(0).padStart(9)}\n`);
    for (const r of ratios) process.stdout.write(`${r.model}, ${r.built}: ${r.ratio.toFixed(2)}× the spec-built samples/s\n`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main(process.argv.slice(2));
