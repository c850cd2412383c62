import { NBODY, NBODY_PUBLISHED, nbodyRun } from '../../experiments/equivariant/nbody.js';
import type { NBodyModel, NBodyResult } from '../../experiments/equivariant/nbody.js';
import { UsageError } from '../args.js';
import type { CliIO } from '../command.js';
import type { ParsedFlags } from '../args.js';
import { fmt, isSilent, table } from '../progress.js';

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
export async function runNBody(flags: ParsedFlags, io: CliIO): Promise<number> {
  const json = Boolean(flags.json),
    quiet = isSilent(flags);
  const models = String(flags.model ?? 'segnn')
    .split(',')
    .map((m) => m.trim()) as NBodyModel[];
  for (const m of models)
    if (!NBODY_MODELS.includes(m)) throw new UsageError(`equivariant train: --model must be among ${NBODY_MODELS.join(', ')}; got '${m}'`);
  const seeds = Array.from({ length: flags.seeds as number }, (_, k) => (flags.seed as number) + k);
  const epochs = flags.epochs as number;
  const rows: NBodyResult[] = [];
  for (const model of models)
    for (const seed of seeds) {
      if (!quiet) io.err(`nbody ${model} seed ${seed}: ${epochs} epochs on ${flags.train} trajectories\n`);
      const r = nbodyRun(model, {
        seed,
        epochs,
        train: flags.train as number,
        valid: flags.valid as number,
        test: flags.test as number,
        batch: flags.batch as number,
        lr: (flags.lr as number | undefined) ?? 5e-4,
        evalEvery: flags['eval-every'] as number,
        hidden: flags.irreps as string | undefined,
        layers: flags.layers as number,
        lmax: flags.lmax as number,
        schedule: flags.schedule as string,
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
        train: flags.train,
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
    `nbody task (EGNN Table 2): ${NBODY.particles} charged particles, frame ${NBODY.inputFrame} → ${NBODY.targetFrame} (1000 steps); ${flags.train} training trajectories, ${epochs} epochs, Adam lr ${fmt((flags.lr as number | undefined) ?? 5e-4)} (${flags.schedule}), batch ${flags.batch}; test MSE at the best validation epoch\n`,
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
