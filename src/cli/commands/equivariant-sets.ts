import { SET_MODELS, SET_TASK, setAttentionRun } from '../../experiments/equivariant/attention-sets.js';
import type { SetAttentionRow, SetModel } from '../../experiments/equivariant/attention-sets.js';
import { UsageError } from '../args.js';
import type { CliIO } from '../command.js';
import { fmt, table } from '../progress.js';
import { spread } from './equivariant-nbody.js';

/** What `equivariant train --task sets` asks for: the models (comma-separated), how many seeds from `seed`, epochs and learning rate. */
export interface SetsCall {
  readonly models: string;
  readonly seeds: number;
  readonly seed: number;
  readonly epochs: number;
  readonly lr: number;
  readonly json: boolean;
  /** No progress on stderr (--json, --quiet). */
  readonly quiet: boolean;
}

/**
 * `paralens equivariant train --task sets`: attention on set(6) (its kernels αI + β11ᵀ derived by
 * the solver) against DeepSets on fixed-size close-pair sets, once per seed; held-out accuracy,
 * the permutation-invariance defect and the time, per seed and as a spread.
 */
export async function runSets(call: SetsCall, io: CliIO): Promise<number> {
  const { epochs, lr, quiet } = call;
  const models = call.models.split(',').map((m): SetModel => {
    const model = (Object.keys(SET_MODELS) as SetModel[]).find((n) => n === m.trim());
    if (!model) throw new UsageError(`equivariant train --task sets: --model must be among ${Object.keys(SET_MODELS).join(', ')}; got '${m.trim()}'`);
    return model;
  });
  const seeds = Array.from({ length: call.seeds }, (_, k) => call.seed + k);
  const rows: SetAttentionRow[] = [];
  for (const model of models)
    for (const seed of seeds) {
      if (!quiet) io.err(`sets ${model} seed ${seed}: ${epochs} epochs on ${SET_TASK.trainSets} sets of ${SET_TASK.size}\n`);
      const r = setAttentionRun(model, seed, epochs, lr);
      if (!quiet) io.err(`  → test accuracy ${fmt(r.testAccuracy)}, invariance defect ${fmt(r.invarianceDefect, 3)}, ${fmt(r.seconds, 4)} s\n`);
      rows.push(r);
    }
  const summary = models.map((model) => {
    const rs = rows.filter((r) => r.model === model);
    return {
      model,
      parameters: rs[0]!.parameters,
      test: spread(rs.map((r) => r.testAccuracy)),
      defect: spread(rs.map((r) => r.invarianceDefect)),
      spec: rs[0]!.spec,
    };
  });
  if (call.json) {
    io.out(
      JSON.stringify({
        task: 'sets',
        set_size: SET_TASK.size,
        radius: SET_TASK.radius,
        train_sets: SET_TASK.trainSets,
        test_sets: SET_TASK.testSets,
        epochs,
        lr,
        rows: rows.map((r) => ({
          model: r.model,
          seed: r.seed,
          parameters: r.parameters,
          train_accuracy: r.trainAccuracy,
          test_accuracy: r.testAccuracy,
          invariance_defect: r.invarianceDefect,
          seconds: r.seconds,
          spec: r.spec,
        })),
        summary: summary.map((s) => ({
          model: s.model,
          parameters: s.parameters,
          test_accuracy_mean: s.test.mean,
          test_accuracy_min: s.test.min,
          test_accuracy_max: s.test.max,
          spec: s.spec,
        })),
      }) + '\n',
    );
    return 0;
  }
  io.out(
    `close pairs in sets of ${SET_TASK.size} points (r = ${SET_TASK.radius}); ${SET_TASK.trainSets} training and ${SET_TASK.testSets} held-out sets, ${epochs} epochs, Adam lr ${fmt(lr)}, batch 64\n`,
  );
  io.out(
    table(
      ['model', 'seed', 'params', 'train accuracy', 'test accuracy', 'invariance defect', 'seconds'],
      rows.map((r) => [r.model, r.seed, r.parameters, fmt(r.trainAccuracy), fmt(r.testAccuracy), fmt(r.invarianceDefect, 3), fmt(r.seconds, 4)]),
    ) + '\n\n',
  );
  io.out(
    table(
      ['model', 'params', 'test accuracy mean', 'min … max'],
      summary.map((s) => [s.model, s.parameters, fmt(s.test.mean), `${fmt(s.test.min)} … ${fmt(s.test.max)}`]),
    ) + '\n',
  );
  return 0;
}
