import { NBODY, NBODY_PUBLISHED, nbodyRun } from '../../experiments/equivariant/nbody.js';
import type { NBodyModel, NBodyResult, NBodyRunOptions } from '../../experiments/equivariant/nbody.js';
import { UsageError } from '../args.js';
import type { CliIO } from '../command.js';
import { fmt, table } from '../progress.js';

export const NBODY_MODELS: readonly NBodyModel[] = ['attention', 'segnn', 'segnn-attention', 'gnn', 'mlp', 'linear'];

/** Mean, smallest and largest of a list. */
export function spread(xs: readonly number[]): { mean: number; min: number; max: number } {
  return { mean: xs.reduce((a, b) => a + b, 0) / xs.length, min: Math.min(...xs), max: Math.max(...xs) };
}

/**
 * `paralens equivariant train --task nbody`: trains the chosen models on the charged-particle
 * task once per seed (sequentially), logs validation progress to stderr and prints test MSE,
 * the equivariance defect and the time of every run, the spread over seeds, and the published
 * numbers beside them.
 */
/** What `equivariant train --task nbody` asks for: the models (comma-separated), how many seeds from `seed`, and the options of every run. */
export interface NBodyCall {
  readonly models: string;
  readonly seeds: number;
  readonly seed: number;
  readonly options: Omit<NBodyRunOptions, 'seed' | 'onEpoch'> & {
    readonly epochs: number;
    readonly train: number;
    readonly lr: number;
    readonly batch: number;
    readonly schedule: string;
  };
  readonly json: boolean;
  /** No progress on stderr (--json, --quiet). */
  readonly quiet: boolean;
}

export async function runNBody(call: NBodyCall, io: CliIO): Promise<number> {
  const { json, quiet, options } = call;
  const models = call.models.split(',').map((m) => {
    const model = NBODY_MODELS.find((n) => n === m.trim());
    if (!model) throw new UsageError(`equivariant train: --model must be among ${NBODY_MODELS.join(', ')}; got '${m.trim()}'`);
    return model;
  });
  const seeds = Array.from({ length: call.seeds }, (_, k) => call.seed + k);
  const { epochs } = options;
  const rows: NBodyResult[] = [];
  for (const model of models)
    for (const seed of seeds) {
      if (!quiet) io.err(`nbody ${model} seed ${seed}: ${epochs} epochs on ${options.train} trajectories\n`);
      const r = nbodyRun(model, {
        ...options,
        seed,
        onEpoch: (e) => {
          if (!quiet && e.validMSE !== undefined) io.err(`  epoch ${e.epoch}  train ${fmt(e.trainLoss)}  valid ${fmt(e.validMSE)}  ${fmt(e.seconds, 4)} s\n`);
        },
      });
      if (!quiet)
        io.err(
          `  → best epoch ${r.bestEpoch}: valid ${fmt(r.validMSE)}, test ${fmt(r.testMSE)}, equivariance defect ${fmt(r.equivarianceDefect, 3)}, ${fmt(r.seconds, 4)} s\n`,
        );
      rows.push(r);
    }
  const summary = models.map((model) => {
    const rs = rows.filter((r) => r.model === model);
    return {
      model,
      seeds: rs.length,
      test: spread(rs.map((r) => r.testMSE)),
      defect: spread(rs.map((r) => r.equivarianceDefect)),
      seconds: spread(rs.map((r) => r.seconds)),
      parameters: rs[0]!.parameters,
      spec: rs[0]!.spec,
    };
  });
  if (json) {
    io.out(
      JSON.stringify({
        task: 'nbody',
        particles: NBODY.particles,
        train: options.train,
        epochs,
        rows: rows.map((r) => ({
          model: r.model,
          seed: r.seed,
          parameters: r.parameters,
          epochs: r.epochs,
          best_epoch: r.bestEpoch,
          valid_mse: r.validMSE,
          test_mse: r.testMSE,
          equivariance_defect: r.equivarianceDefect,
          seconds: r.seconds,
          spec: r.spec,
        })),
        summary: summary.map((s) => ({
          model: s.model,
          seeds: s.seeds,
          parameters: s.parameters,
          test_mse_mean: s.test.mean,
          test_mse_min: s.test.min,
          test_mse_max: s.test.max,
          equivariance_defect_mean: s.defect.mean,
          seconds_mean: s.seconds.mean,
          spec: s.spec,
        })),
        published: NBODY_PUBLISHED,
      }) + '\n',
    );
    return 0;
  }
  io.out(
    `nbody task (EGNN Table 2): ${NBODY.particles} charged particles, frame ${NBODY.inputFrame} → ${NBODY.targetFrame} (1000 steps); ${options.train} training trajectories, ${epochs} epochs, Adam lr ${fmt(options.lr)} (${options.schedule}), batch ${options.batch}; test MSE at the best validation epoch\n`,
  );
  io.out(
    table(
      ['model', 'seed', 'params', 'best epoch', 'valid MSE', 'test MSE', 'equivariance defect', 'seconds'],
      rows.map((r) => [r.model, r.seed, r.parameters, r.bestEpoch, fmt(r.validMSE), fmt(r.testMSE), fmt(r.equivarianceDefect, 3), fmt(r.seconds, 4)]),
    ) + '\n\n',
  );
  io.out(
    table(
      ['model', 'seeds', 'test MSE mean', 'min … max', 'equivariance defect', 'seconds'],
      summary.map((s) => [s.model, s.seeds, fmt(s.test.mean), `${fmt(s.test.min)} … ${fmt(s.test.max)}`, fmt(s.defect.mean, 3), fmt(s.seconds.mean, 4)]),
    ) + '\n\n',
  );
  io.out(`published: ${NBODY_PUBLISHED.map((p) => `${p.model} ${p.mse}`).join(', ')}\n`);
  return 0;
}
