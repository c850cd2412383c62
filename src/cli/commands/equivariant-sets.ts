import { SET_MODELS, SET_TASK, setAttentionRun } from '../../experiments/equivariant/attention-sets.js';
import type { SetAttentionRow, SetModel } from '../../experiments/equivariant/attention-sets.js';
import { UsageError } from '../args.js';
import type { ParsedFlags } from '../args.js';
import type { CliIO } from '../command.js';
import { fmt, isSilent, table } from '../progress.js';
import { spread } from './equivariant-nbody.js';

/**
 * `paralens equivariant train --task sets`: attention on set(10) (its kernels αI + β11ᵀ derived by
 * the solver) against DeepSets on fixed-size close-pair sets, once per seed; held-out accuracy,
 * the permutation-invariance defect and the time, per seed and as a spread.
 */
export async function runSets(flags: ParsedFlags, io: CliIO): Promise<number> {
  const models = String(flags.model ?? 'attention,deepsets,deepsets-wide')
    .split(',')
    .map((m) => m.trim()) as SetModel[];
  for (const m of models)
    if (!(m in SET_MODELS)) throw new UsageError(`equivariant train --task sets: --model must be among ${Object.keys(SET_MODELS).join(', ')}; got '${m}'`);
  const seeds = Array.from({ length: flags.seeds as number }, (_, k) => (flags.seed as number) + k);
  const epochs = flags.epochs as number,
    lr = (flags.lr as number | undefined) ?? 3e-3;
  const rows: SetAttentionRow[] = [];
  for (const model of models)
    for (const seed of seeds) {
      if (!isSilent(flags)) io.err(`sets ${model} seed ${seed}: ${epochs} epochs on ${SET_TASK.trainSets} sets of ${SET_TASK.size}\n`);
      const r = setAttentionRun(model, seed, epochs, lr);
      if (!isSilent(flags)) io.err(`  → test accuracy ${fmt(r.testAccuracy)}, invariance defect ${fmt(r.invarianceDefect, 3)}, ${fmt(r.seconds, 4)} s\n`);
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
  if (flags.json) {
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
