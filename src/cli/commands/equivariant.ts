import { benchmarkExperiment } from '../../equivariant/tasks/benchmark.js';
import type { BenchmarkRow, BenchmarkTask } from '../../equivariant/tasks/benchmark.js';
import { inertiaTask } from '../../equivariant/tasks/inertia.js';
import { o5Task } from '../../equivariant/tasks/o5-invariant.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { fmt, isSilent, table } from '../progress.js';
import { trainingFlags } from '../training.js';

const TASKS: Record<string, BenchmarkTask> = { inertia: inertiaTask, o5: o5Task };

const trainCommand: Command = {
  name: 'train',
  summary: 'equivariant model vs plain MLP on an EMLP benchmark task',
  usage: 'paralens equivariant train --task inertia|o5 [--sizes 30,100,300,1000] [--steps N] [--seed N] [--json]',
  description: `EMLP benchmarks (Finzi, Welling & Wilson 2021, §7), generated in code:
  inertia  O(3): 5 random point masses (5T(0)+5V) → their inertia tensor (T(2));
  o5       O(5): x₁, x₂ (2V) → sin‖x₁‖ − ‖x₂‖³/2 + x₁ᵀx₂/(‖x₁‖‖x₂‖) (T(0)).
Trains an EMLP (derived equivariant linear layers, gated nonlinearities, a bilinear layer)
and a plain ReLU MLP on growing training sets with Adam for the same number of steps;
reports held-out MSE (500 samples) and the equivariance error ‖f(gx) − g·f(x)‖/‖g·f(x)‖
under random group elements.`,
  flags: {
    task: { type: 'string', help: 'benchmark task', default: 'inertia', choices: Object.keys(TASKS) },
    sizes: { type: 'string', help: 'training-set sizes, comma-separated', default: '30,100,300,1000' },
    steps: { type: 'int', help: 'Adam steps per model', default: 1500, range: 'positive' },
    ...runtimeFlags,
    ...trainingFlags(['lr', 'seed'], { lr: { default: 0.01, help: 'learning rate (Adam, both models)' }, seed: { help: 'random seed (data, initialisation)' } }),
  },
  async run(flags, io) {
    const sizes = String(flags.sizes).split(',').map((s) => Number(s.trim()));
    if (!sizes.length || sizes.some((n) => !(Number.isInteger(n) && n > 0))) {
      throw new UsageError(`equivariant train: --sizes expects positive integers separated by commas, got '${flags.sizes}'`);
    }
    const json = Boolean(flags.json);
    const task = TASKS[flags.task as string]!;
    const rows = benchmarkExperiment(task, {
      sizes, steps: flags.steps as number, lr: flags.lr as number, seed: flags.seed as number,
      onRow: (r: BenchmarkRow) => {
        if (!isSilent(flags)) io.err(`  n=${r.n} ${r.model}: test MSE ${fmt(r.testMSE)} (${fmt(r.seconds, 3)} s)\n`);
      },
    });
    if (json) {
      io.out(JSON.stringify({ task: task.name, group: task.group().name, in: task.repIn, out: task.repOut, steps: flags.steps, rows: rows.map((r) => ({
        n: r.n, model: r.model, parameters: r.parameters, test_mse: r.testMSE, relative_mse: r.relativeMSE, equivariance_error: r.equivarianceError, seconds: r.seconds,
      })) }) + '\n');
      return 0;
    }
    io.out(`${task.name} task, ${task.group().name}: ${task.repIn} → ${task.repOut}; Adam lr ${flags.lr}, ${flags.steps} steps per model, 500 held-out samples\n`);
    io.out(table(['train n', 'model', 'params', 'test MSE', 'test MSE / var', 'equivariance error', 'seconds'], rows.map((r) => [r.n, r.model, r.parameters, fmt(r.testMSE), fmt(r.relativeMSE), fmt(r.equivarianceError, 3), fmt(r.seconds, 3)])) + '\n');
    return 0;
  },
};

export const command: Command = {
  name: 'equivariant',
  summary: 'train equivariant models derived from a symmetry group (EMLP benchmarks)',
  usage: 'paralens equivariant SUBCOMMAND [flags]',
  description: 'Equivariant models whose layers are derived from the end over a symmetry group.',
  flags: {},
  subcommands: [trainCommand],
  async run() {
    throw new UsageError('equivariant: give a subcommand: train');
  },
};
