import { quote } from '../../errors.js';
import { benchmarkExperiment } from '../../experiments/equivariant/benchmark.js';
import type { BenchmarkRow, BenchmarkTask } from '../../experiments/equivariant/benchmark.js';
import { inertiaTask } from '../../experiments/equivariant/inertia.js';
import { o5Task } from '../../experiments/equivariant/o5-invariant.js';
import { parseDecimal, UsageError } from '../args.js';
import { NBODY_MODELS, runNBody } from './equivariant-nbody.js';
import { runSets } from './equivariant-sets.js';
import { commandGroup, defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { fmt, isSilent, table } from '../progress.js';
import { trainingFlags } from '../training.js';

const TASKS: Record<string, BenchmarkTask> = { inertia: inertiaTask, o5: o5Task };

const trainCommand = defineCommand({
  name: 'train',
  summary: "equivariant models vs plain baselines on a benchmark task (EMLP's, or EGNN's N-body)",
  usage:
    'paralens equivariant train --task inertia|o5 [--sizes 30,100,300,1000] [--steps N] [--seed N] [--json]\n       paralens equivariant train --task nbody [--model segnn,gnn,…] [--epochs N] [--seeds N] [--irreps IRREPS] [--train N] [--json]',
  description: `EMLP benchmarks (Finzi, Welling & Wilson 2021, §7), generated in code:
  inertia  O(3): 5 random point masses (5T(0)+5V) → their inertia tensor (T(2));
  o5       O(5): x₁, x₂ (2V) → sin‖x₁‖ − ‖x₂‖³/2 + x₁ᵀx₂/(‖x₁‖‖x₂‖) (T(0)).
Trains an EMLP (derived equivariant linear layers, gated nonlinearities, a bilinear layer)
and a plain ReLU MLP on growing training sets with Adam for the same number of steps;
reports held-out MSE (500 samples) and the equivariance error ‖f(gx) − g·f(x)‖/‖g·f(x)‖
under random group elements.

  nbody    E(3): EGNN's charged N-body task (Satorras et al. 2021, Table 2): 5 particles of charge
           ±1 simulated in code (Kipf et al.'s NRI simulator, 3-D), positions and velocities at
           frame 30 → positions 1000 steps later. Models: segnn (steerable E(3) message passing
           on irreps, e3_conv layers), segnn-attention, gnn (message passing on raw coordinates),
           mlp, linear. Adam (by default lr 5e-4 constant and batch 100, as EGNN and SEGNN; the
           runs in docs/equivariant.md use --lr 2e-3 --schedule cosine), validation every
           --eval-every epochs on 2000 trajectories; prints the
           test MSE at the best validation epoch, the equivariance defect (mean squared
           |f(g·x) − g·f(x)| for random g in E(3) × S(5)) and the time, per seed and as a spread.
           Model attention: points_linear, four attention(64x0e+16x1o,4,points(5)) layers whose
           kernels the solver derives, points_linear to one vector, displace.

  sets     S(6): sets of 6 points in [0,1]², label 1 when two are closer than 0.12; attention
           on set(6) (kernels αI + β11ᵀ, derived) against DeepSets (and DeepSets three times
           wider, deepsets-wide), Adam lr 3e-3 by default, batch 64; held-out accuracy and the
           permutation-invariance defect per seed.`,
  flags: {
    task: { type: 'string', help: 'benchmark task', default: 'inertia', choices: [...Object.keys(TASKS), 'nbody', 'sets'] },
    sizes: { type: 'string', help: 'training-set sizes, comma-separated (inertia, o5)', default: '30,100,300,1000' },
    steps: { type: 'int', help: 'Adam steps per model (inertia, o5)', default: 1500, range: 'positive' },
    ...runtimeFlags,
    ...trainingFlags(['lr', 'seed', 'epochs', 'batch', 'schedule'], {
      lr: { default: undefined, help: 'learning rate (Adam; default 0.01 for inertia and o5, 5e-4 for nbody)' },
      seed: { help: 'random seed (inertia, o5: data and initialisation; nbody: initialisation and shuffling, the data are fixed)' },
      epochs: { default: 1000, help: 'nbody: training epochs' },
      batch: { default: 100, range: 'positive', help: 'nbody: minibatch size' },
      schedule: { help: 'nbody: learning-rate schedule over the run (constant, cosine, step, warmup)' },
    }),
    model: {
      type: 'string',
      help: `nbody: models, comma-separated (${NBODY_MODELS.join(', ')}; default segnn); sets: attention, deepsets, deepsets-wide (default all)`,
    },
    seeds: { type: 'int', help: 'nbody: number of seeds, run one after another: --seed, --seed + 1, …', default: 1, range: 'positive' },
    train: { type: 'int', help: 'nbody: training trajectories', default: 3000, range: 'positive' },
    valid: { type: 'int', help: 'nbody: validation trajectories', default: 2000, range: 'positive' },
    test: { type: 'int', help: 'nbody: test trajectories', default: 2000, range: 'positive' },
    'eval-every': { type: 'int', help: 'nbody: validate every this many epochs', default: 5, range: 'positive' },
    irreps: { type: 'string', help: 'nbody: hidden irreps of segnn (default 32x0e+32x1o)' },
    layers: { type: 'int', help: 'nbody: message-passing layers', default: 4, min: 2 },
    lmax: { type: 'int', help: 'nbody: largest ℓ of the spherical-harmonic attributes (segnn)', default: 1, range: 'nonnegative' },
  },
  async run(flags, io) {
    if (flags.task === 'nbody')
      return runNBody(
        {
          models: flags.model ?? 'segnn',
          seeds: flags.seeds,
          seed: flags.seed,
          options: {
            epochs: flags.epochs,
            train: flags.train,
            valid: flags.valid,
            test: flags.test,
            batch: flags.batch,
            lr: flags.lr ?? 5e-4,
            evalEvery: flags['eval-every'],
            hidden: flags.irreps,
            layers: flags.layers,
            lmax: flags.lmax,
            schedule: flags.schedule,
          },
          json: Boolean(flags.json),
          quiet: isSilent(flags),
        },
        io,
      );
    if (flags.task === 'sets')
      return runSets(
        {
          models: flags.model ?? 'attention,deepsets,deepsets-wide',
          seeds: flags.seeds,
          seed: flags.seed,
          epochs: flags.epochs,
          lr: flags.lr ?? 3e-3,
          json: Boolean(flags.json),
          quiet: isSilent(flags),
        },
        io,
      );
    const sizes = String(flags.sizes)
      .split(',')
      .map((s) => parseDecimal(s.trim()) ?? NaN);
    if (!sizes.length || sizes.some((n) => !(Number.isInteger(n) && n > 0))) {
      throw new UsageError(`equivariant train: --sizes expects positive integers separated by commas, got ${quote(flags.sizes)}`);
    }
    const json = Boolean(flags.json);
    const task = TASKS[flags.task]!;
    const rows = benchmarkExperiment(task, {
      sizes,
      steps: flags.steps,
      lr: flags.lr ?? 0.01,
      seed: flags.seed,
      onRow: (r: BenchmarkRow) => {
        if (!isSilent(flags)) io.err(`  n=${r.n} ${r.model}: test MSE ${fmt(r.testMSE)} (${fmt(r.seconds, 3)} s)\n`);
      },
    });
    if (json) {
      io.out(
        JSON.stringify({
          task: task.name,
          group: task.group().name,
          in: task.repIn,
          out: task.repOut,
          steps: flags.steps,
          rows: rows.map((r) => ({
            n: r.n,
            model: r.model,
            parameters: r.parameters,
            test_mse: r.testMSE,
            relative_mse: r.relativeMSE,
            equivariance_error: r.equivarianceError,
            seconds: r.seconds,
          })),
        }) + '\n',
      );
      return 0;
    }
    io.out(
      `${task.name} task, ${task.group().name}: ${task.repIn} → ${task.repOut}; Adam lr ${flags.lr ?? 0.01}, ${flags.steps} steps per model, 500 held-out samples\n`,
    );
    io.out(
      table(
        ['train n', 'model', 'params', 'test MSE', 'test MSE / var', 'equivariance error', 'seconds'],
        rows.map((r) => [r.n, r.model, r.parameters, fmt(r.testMSE), fmt(r.relativeMSE), fmt(r.equivarianceError, 3), fmt(r.seconds, 3)]),
      ) + '\n',
    );
    return 0;
  },
});

export const command = commandGroup({
  name: 'equivariant',
  summary: 'train equivariant models derived from a symmetry group (EMLP benchmarks, the N-body task)',
  usage: 'paralens equivariant SUBCOMMAND [flags]',
  description: 'Equivariant models whose layers are derived from the end over a symmetry group.',
  subcommands: [trainCommand],
});
