/**
 * The command line at the speed of the library: one Fashion-MNIST epoch of the MLP
 * 784-256-256-10 (SGD, batch 128) trained by the Trainer in this process, and the same
 * training run by `paralens train --json` in a process of its own, started as a user starts
 * it (no Node flags: the command turns relaxed SIMD on and starts its threads itself). The
 * command's figure is its `seconds_per_epoch` (the training of an epoch, as the Trainer's is);
 * its process's wall and CPU time (user + system, from /usr/bin/time) show whether both
 * cores worked: CPU time above wall time. Then the command's whole two-epoch run (training,
 * the test set evaluated after each epoch, the training set once at the end: its `seconds`)
 * beside PyTorch on one thread doing the same work (bench/fashion_torch.py, finalTrainEval).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadFashionMnist } from '../src/data/node.js';
import { softmaxCrossEntropy } from '../src/nn/loss.js';
import { parseSpec } from '../src/catalogue/index.js';
import { Trainer } from '../src/train/trainer.js';
import { MLP_SPEC } from './paralens.js';
import { PYTHON, torchEnv, torchVersion } from './torch.js';
import { names, recorder } from './workloads.js';
import type { BenchConfig, Measurement } from './workloads.js';

const CLI = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'cli', 'main.js');
const TIME = '/usr/bin/time';
const FASHION_DIR = '/usr/share/datasets/fashion-mnist';
/** The run set beside PyTorch's (issue 33, point 8: within 1.6× of PyTorch on one thread). */
const TWO_EPOCHS = 2;

/** Per-epoch training seconds of the Trainer on the real data, `epochs` epochs from a fresh start (as the command runs them). */
function trainerEpochs(cfg: BenchConfig): number[] {
  const { train } = loadFashionMnist();
  const { epochs, batch, lr } = cfg.fashion;
  const t = new Trainer(parseSpec(MLP_SPEC), train, { loss: softmaxCrossEntropy, batch, lr, optimizer: 'sgd', seed: 0 });
  return Array.from({ length: epochs }, () => {
    const t0 = performance.now();
    t.runEpoch();
    return (performance.now() - t0) / 1000;
  });
}

/** The command's run of `epochs` epochs: its median epoch, its whole run (`seconds`: epochs and evaluations), and its process's wall and CPU seconds. */
function cliRun(cfg: BenchConfig, epochs: number): { epoch: number; seconds: number; wall: number; cpu?: number; backend: string } {
  const { batch, lr } = cfg.fashion;
  const args = [
    CLI,
    'train',
    '--model',
    MLP_SPEC,
    '--data',
    'fashion-mnist',
    '--optimizer',
    'sgd',
    '--lr',
    String(lr),
    '--batch',
    String(batch),
    '--epochs',
    String(epochs),
    '--json',
  ];
  const timed = existsSync(TIME);
  const t0 = performance.now();
  // a clean environment for the choices the command makes itself
  const env = { ...process.env, PARALENS_BACKEND: '', PARALENS_THREADS: '' };
  const r = timed
    ? spawnSync(TIME, ['-f', 'paralens-time %e %U %S', process.execPath, ...args], { encoding: 'utf8', env })
    : spawnSync(process.execPath, args, { encoding: 'utf8', env });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`paralens train exited ${r.status}: ${(r.stderr || '').trim().split('\n').at(-1)}`);
  const out = JSON.parse(r.stdout) as { seconds: number; seconds_per_epoch: number; backend: { name: string; simd?: string; threads: number } };
  if (out.backend.name !== 'wasm') throw new Error(`paralens train ran on '${out.backend.name}'`);
  const m = /paralens-time ([\d.]+) ([\d.]+) ([\d.]+)/.exec(r.stderr);
  const backend = `${out.backend.name}, ${out.backend.simd ?? 'no'} SIMD, ${out.backend.threads} thread(s)`;
  return { epoch: out.seconds_per_epoch, seconds: out.seconds, wall: m ? Number(m[1]) : wall, ...(m ? { cpu: Number(m[2]) + Number(m[3]) } : {}), backend };
}

/** PyTorch on one thread doing the command's run of `epochs` epochs: its seconds from the first epoch to the last evaluation. */
function torchRun(cfg: BenchConfig, epochs: number): number {
  const { batch, lr } = cfg.fashion;
  const job = {
    model: 'mlp',
    spec: MLP_SPEC,
    theta: parseSpec(MLP_SPEC)
      .init(0)
      .map((t) => Array.from(t.data)),
    epochs,
    batch,
    lr,
    optimizer: 'sgd',
    schedule: 'constant',
    dataDir: FASHION_DIR,
    limit: null,
    threads: 1,
    finalTrainEval: true,
  };
  const script = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'fashion_torch.py');
  const r = spawnSync(PYTHON, [script], { input: JSON.stringify(job), env: torchEnv(), encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`bench/fashion_torch.py exited ${r.status}: ${(r.stderr || '').trim().split('\n').at(-1)}`);
  return (JSON.parse(r.stdout) as { seconds: number }).seconds;
}

/** The Trainer's epoch against the command's, and (with `torch`) the command's two-epoch run against PyTorch's on one thread. */
export function benchCliEpoch(cfg: BenchConfig, skipped: string[], log: (s: string) => void, torch: boolean): Measurement[] {
  const out: Measurement[] = [];
  const workload = names.fashionEpoch(cfg.fashion.batch);
  if (!existsSync(FASHION_DIR)) {
    const why = `${workload}: Fashion-MNIST is missing (apt-get install -y dataset-fashion-mnist)`;
    skipped.push(why);
    log(`  skipping ${why}`);
    return out;
  }
  recorder('paralens wasm (Trainer)', out, skipped, log)(workload, 's', () => trainerEpochs(cfg));
  let run: ReturnType<typeof cliRun> | undefined;
  recorder(
    'paralens CLI',
    out,
    skipped,
    log,
  )(workload, 's', () => {
    run = cliRun(cfg, cfg.fashion.epochs);
    return [run.epoch];
  });
  if (run) {
    log(`  the command ran on: ${run.backend}`);
    const add = recorder('paralens CLI', out, skipped, log);
    add(names.cliProcess(cfg.fashion.epochs, 'wall'), 's', () => [run!.wall]);
    if (run.cpu !== undefined) add(names.cliProcess(cfg.fashion.epochs, 'CPU'), 's', () => [run!.cpu!]);
    else log(`  ${TIME} is missing: no CPU time for the paralens train process`);
  }
  const two = names.fashionRun(TWO_EPOCHS, cfg.fashion.batch);
  recorder('paralens CLI', out, skipped, log)(two, 's', () => [cliRun(cfg, TWO_EPOCHS).seconds]);
  const v = torch ? torchVersion() : undefined;
  if (v) recorder(`PyTorch ${v.split('+')[0]} (1 thread)`, out, skipped, log)(two, 's', () => [torchRun(cfg, TWO_EPOCHS)]);
  else log(`  ${two}: PyTorch ${torch ? 'is not importable by /usr/bin/python3' : 'skipped'}: the command's run alone`);
  return out;
}

/** One line on the command against the Trainer: its epoch ÷ the Trainer's (target ≤ 1.1), and its process's CPU ÷ wall time (above 1: more than one core busy). */
export function cliSummary(results: readonly Measurement[], cfg: BenchConfig): string | undefined {
  const get = (workload: string, system: string): number | undefined => results.find((r) => r.workload === workload && r.system === system)?.value;
  const w = names.fashionEpoch(cfg.fashion.batch);
  const cli = get(w, 'paralens CLI'),
    lib = get(w, 'paralens wasm (Trainer)');
  if (cli === undefined || lib === undefined) return undefined;
  const wall = get(names.cliProcess(cfg.fashion.epochs, 'wall'), 'paralens CLI'),
    cpu = get(names.cliProcess(cfg.fashion.epochs, 'CPU'), 'paralens CLI');
  const cores = wall && cpu ? `; its process: CPU ${cpu.toFixed(2)} s over wall ${wall.toFixed(2)} s = ${(cpu / wall).toFixed(2)}` : '';
  const two = names.fashionRun(TWO_EPOCHS, cfg.fashion.batch);
  const ours = get(two, 'paralens CLI'),
    theirs = results.find((r) => r.workload === two && r.system.startsWith('PyTorch'))?.value;
  const peer =
    ours && theirs
      ? `; its ${TWO_EPOCHS} epochs with evaluation ÷ PyTorch's on one thread: ${(ours / theirs).toFixed(2)}× (${ours.toFixed(2)} s ÷ ${theirs.toFixed(2)} s; target ≤ 1.6×)`
      : '';
  return `paralens train's Fashion-MNIST epoch ÷ the Trainer's: ${(cli / lib).toFixed(2)}× (${cli.toFixed(3)} s ÷ ${lib.toFixed(3)} s; target ≤ 1.05×)${cores}${peer}`;
}
