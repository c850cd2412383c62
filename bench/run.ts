/**
 * `npm run bench`: paralens (every registered backend) side by side with TensorFlow.js (cpu,
 * wasm), jax-js (wasm) and PyTorch (1 and 2 threads) in ONE run, on the same workloads
 * (bench/workloads.ts): matmul 128–1024, MLP 784-256-256-10 training at batch 128 and 1, a
 * small CNN, seed 000's XOR; and the Fashion-MNIST MLP epoch by the Trainer and by the
 * `paralens train` command (bench/cli-epoch.ts).
 * Every measurement has a warm-up and is the median of repeats. Peers that are missing are
 * skipped with a message, never faked.
 *
 *   node --experimental-wasm-relaxed-simd dist/bench/run.js [--quick] [--json] [--skip tfjs-cpu,torch,…]
 */
import { cpus, totalmem } from 'node:os';
import { availableParallelism } from 'node:os';
import { backend, backendNames, registerBackend, setBackend } from '../src/tensor/registry.js';
import '../src/tensor/js-backend.js';
import { benchCliEpoch, cliSummary } from './cli-epoch.js';
import { benchJaxjs, loadJaxjs } from './jaxjs.js';
import { benchOnnxImport, onnxRatios } from './onnx-import.js';
import { benchParalens } from './paralens.js';
import { markdownTable, ratios, ratioTable } from './report.js';
import { benchTfjs, loadTfjs } from './tfjs.js';
import { benchTorch, torchEnv, torchVersion } from './torch.js';
import { benchConfig } from './workloads.js';
import type { Measurement } from './workloads.js';

const argv = process.argv.slice(2);
const quick = argv.includes('--quick');
const json = argv.includes('--json');
const skipAt = argv.indexOf('--skip');
const skip = new Set(skipAt >= 0 ? (argv[skipAt + 1] ?? '').split(',') : []);
const onlyAt = argv.indexOf('--only');
const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
if (argv.includes('--help')) {
  process.stdout.write(
    'usage: npm run bench -- [--quick] [--json] [--skip js,wasm,wasm-1thread,cli,onnx,webgpu,tfjs-cpu,tfjs-wasm,jaxjs,torch] [--only WORKLOAD-SUBSTRING]\n',
  );
  process.exit(0);
}
const log = (s: string): void => void process.stderr.write(s + '\n');
/**
 * A full garbage collection between systems (node --expose-gc, as `npm run bench` runs it), so
 * that the garbage one system leaves is not collected — by V8's helper threads, on these two
 * cores — in the time of the next.
 */
const settle = (): void => (globalThis as { gc?: () => void }).gc?.();

async function main(): Promise<void> {
  const cfg = { ...benchConfig(quick), only };
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    relaxedSimdFlag: process.execArgv.includes('--experimental-wasm-relaxed-simd'),
  };
  log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}${quick ? ' (quick)' : ''}`);
  const systems: Record<string, string> = {};
  const skipped: string[] = [];
  const note = (s: string): void => {
    skipped.push(s);
    log(`skipping: ${s}`);
  };

  // the fast backend: 'wasm' (2 threads where shared memory allows) plus a 1-thread twin
  let dispose: (() => void)[] = [];
  try {
    const w = await import('../src/tensor/wasm-backend.js');
    const b = await w.loadWasmBackend();
    systems.wasm = `paralens wasm backend: ${b.simd} SIMD, ${b.threads} thread(s)`;
    dispose = [() => b.dispose()];
    if (b.threads > 1) {
      const one = await w.createWasmBackend({ threads: 1, name: 'wasm-1thread' });
      registerBackend(one);
      systems['wasm-1thread'] = `paralens wasm backend: ${one.simd} SIMD, 1 thread`;
      dispose.push(() => one.dispose());
    } else log(`paralens 'wasm' runs on 1 thread here (no worker pool), so no separate 1-thread row`);
  } catch (e) {
    note(`paralens 'wasm' backend not available (${(e as Error).message.split('\n')[0]})`);
  }
  systems.js = 'paralens reference TypeScript backend (packed 4×4 micro-kernel)';

  const results: Measurement[] = [];
  for (const name of backendNames()) {
    if (skip.has(name)) continue;
    settle();
    log(`paralens on backend '${name}'`);
    results.push(...benchParalens(name, `paralens ${name}`, cfg, skipped, log));
  }
  if (!skip.has('cli') && backendNames().includes('wasm')) {
    settle();
    log(`paralens: the Trainer's Fashion-MNIST epoch and the paralens train command's`);
    const previous = backend();
    setBackend('wasm');
    try {
      results.push(...benchCliEpoch(cfg, skipped, log, !skip.has('torch')));
    } finally {
      setBackend(previous);
    }
    systems['paralens CLI'] =
      `paralens train --json in a process of its own, no Node flags (node dist/src/cli/main.js train … --epochs ${cfg.fashion.epochs}); its seconds_per_epoch, and the process's wall and CPU time from /usr/bin/time`;
  }
  // an imported MLP and CNN beside the same models built from their specs (bench/onnx-import.ts)
  if (!skip.has('onnx') && backendNames().includes('wasm')) {
    settle();
    log(`paralens: the MLP and CNN imported from ONNX beside the spec-built ones`);
    const previous = backend();
    setBackend('wasm');
    try {
      results.push(...benchOnnxImport('paralens wasm', cfg, skipped, log));
    } finally {
      setBackend(previous);
    }
  }
  // the webgpu backend, at sizes an emulated device (SwiftShader) finishes in seconds
  if (!skip.has('webgpu')) {
    const { benchWebGpu, gpuSystem, startWebGpu } = await import('./webgpu.js');
    const gpu = await startWebGpu(note);
    if (gpu) {
      systems.webgpu = `${gpuSystem(gpu)}: ${gpu.device.label}${gpu.device.emulated ? '; these rows check that it runs, and are left out of the speed-ups' : ''}`;
      log(`paralens on backend 'webgpu'`);
      const w =
        gpu.device.emulated || quick
          ? { matmulSizes: [128, 256], mlp: { batch: 128, steps: 4 }, cnn: { batch: 32, steps: 2 }, repeats: 3 }
          : {
              matmulSizes: cfg.matmulSizes,
              mlp: { batch: 128, steps: 20 },
              cnn: { batch: cfg.conv.batch, steps: cfg.conv.steps },
              charTransformer: cfg.charTransformer,
              repeats: cfg.repeats,
            };
      results.push(...(await benchWebGpu(gpu, w, skipped, log)));
    }
  }
  for (const be of ['cpu', 'wasm'] as const) {
    if (skip.has(`tfjs-${be}`)) continue;
    const t = await loadTfjs(be);
    if ('error' in t) {
      note(t.error);
      continue;
    }
    systems[`tfjs-${be}`] = t.note;
    settle();
    log(`TensorFlow.js ${be}`);
    results.push(...benchTfjs(t.tf, `TF.js ${be}`, cfg, skipped, log));
  }
  if (!skip.has('jaxjs')) {
    const j = await loadJaxjs();
    if ('error' in j) note(j.error);
    else {
      systems.jaxjs = j.note;
      settle();
      log('jax-js wasm');
      results.push(...benchJaxjs(j.jax, 'jax-js wasm', cfg, skipped, log));
    }
  }
  if (!skip.has('torch')) {
    const v = torchVersion();
    if (!v) note(`PyTorch not importable by /usr/bin/python3 (apt-get install -y python3-torch)`);
    else {
      const env = torchEnv();
      systems.torch = `PyTorch ${v} (Debian python3-torch), OPENBLAS_CORETYPE=${env.OPENBLAS_CORETYPE} OMP_WAIT_POLICY=${env.OMP_WAIT_POLICY}, torch.set_num_threads(1 | 2)`;
      for (const threads of [1, 2]) {
        log(`PyTorch, ${threads} thread(s)`);
        results.push(...benchTorch(threads, cfg, log));
      }
    }
  }
  for (const d of dispose) d();

  const rs = ratios(results);
  const cli = cliSummary(results, cfg);
  if (json) {
    process.stdout.write(
      JSON.stringify({ machine, quick, config: cfg, systems, skipped, results, ratios: rs, onnx: onnxRatios(results), ...(cli ? { cli } : {}) }) + '\n',
    );
  } else {
    process.stdout.write(`\n${markdownTable(results)}\n\nSpeed-ups (paralens ÷ peer; > 1 means paralens is faster):\n\n${ratioTable(rs)}\n`);
    if (cli) process.stdout.write(`\n${cli}\n`);
    const onnx = onnxRatios(results);
    if (onnx.length)
      process.stdout.write(
        `\nONNX import (imported ÷ spec-built samples/s; target ≥ 0.91 with the layers recovered):\n${onnx.map((r) => `- ${r.model}, ${r.built}: ${r.ratio.toFixed(2)}`).join('\n')}\n`,
      );
    for (const [k, v] of Object.entries(systems)) process.stdout.write(`\n- ${k}: ${v}`);
    process.stdout.write('\n');
  }
}

main().catch((e) => {
  process.stderr.write(`bench failed: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
