import { distill, verdicts } from '../../experiments/natural/distill.js';
import type { MeanSpread } from '../../experiments/natural/distill.js';
import { UsageError } from '../args.js';
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, dataForms, inputsOf, loadData } from '../data.js';
import type { Task } from '../../data/task.js';
import { fmt, isSilent, Progress, table } from '../progress.js';
import { trainingFlags } from '../training.js';

const ms = (m: MeanSpread): string => `${fmt(m.mean, 3)} ± ${fmt(m.std, 2)}`;

export const command = defineCommand({
  name: 'distill',
  summary: 'knowledge distillation: a student alone, with soft targets, and with a hint through a natural transformation',
  usage: 'paralens distill --data NAME [--teacher SPEC] [--student SPEC] [--temperature T] [--alpha A] [--beta B] [--seeds N]',
  description: `Trains a teacher (larger MLP) and the same student from the same initialisation three ways, on
--seeds stratified 80/20 splits (features standardised on the training part): (a) alone on the labels,
(b) on Hinton et al.'s loss α·T²·KL(softmax(t/T) ‖ softmax(s/T)) + (1−α)·CE(labels, s), (c) on (b) plus a
FitNets hint β·‖η(h_S) − h_T‖² through a learned natural transformation η (adapter) from the student's
hidden features to the teacher's. With fashion-mnist the 10 000 test images are the held-out set;
--limit picks a seeded subset of the training rows per seed. Reports held-out accuracy, mean ±
standard deviation over seeds, and whether (b) and (c) helped (mean paired difference beyond two
standard errors). The hidden layer of a model is the output of everything before its last morphism.
Data: a built-in set, fashion-mnist, or your own CSV, NumPy or IDX files (see paralens train --help).`,
  flags: {
    ...dataFlags({ help: 'classification data set' }),
    teacher: { type: 'string', help: 'teacher spec (default dense(d,64) >> relu >> dense(64,64) >> relu >> dense(64,C))' },
    student: { type: 'string', help: 'student spec (default dense(d,4) >> relu >> dense(4,C))' },
    temperature: { type: 'number', help: 'softmax temperature T of the soft targets', default: 4, range: 'positive' },
    alpha: { type: 'number', help: 'weight α of the soft term (1−α on the labels)', default: 0.9, range: 'unit' },
    beta: { type: 'number', help: 'weight β of the hint term', default: 1, range: 'nonnegative' },
    eta: { type: 'string', help: 'component η of the hint, student → teacher features (default adapter(p_S,p_T))' },
    seeds: { type: 'int', help: 'number of seeds (splits and initialisations)', default: 5, range: 'positive' },
    ...runtimeFlags,
    ...trainingFlags(['seed', 'epochs', 'lr', 'batch'], {
      seed: { help: 'first seed (also generates moons/spirals/…)' },
      epochs: { default: 150, help: 'epochs for every model' },
      lr: { default: 0.01, help: 'Adam learning rate' },
      batch: { default: 16, range: 'positive', help: 'minibatch size' },
    }),
    limit: { type: 'int', help: 'training rows per seed, a seeded random subset (default: all)', range: 'positive' },
    'test-limit': { type: 'int', help: "held-out rows taken from a fixed test split such as fashion-mnist's (default: all)", range: 'positive' },
  },
  async run(flags, io) {
    if (!flags.data) throw new UsageError(`distill: --data NAME is required (${dataForms()})`);
    const json = Boolean(flags.json);
    const data = inputsOf(
      await loadData(String(flags.data), {
        seed: flags.seed,
        dataDir: flags['data-dir'],
        target: flags.target,
        task: flags.task,
      }),
    );
    const progress = new Progress(io, 'distill', isSilent(flags));
    const r = distill(data, {
      teacher: flags.teacher,
      student: flags.student,
      eta: flags.eta,
      temperature: flags.temperature,
      alpha: flags.alpha,
      beta: flags.beta,
      seeds: flags.seeds,
      seed: flags.seed,
      epochs: flags.epochs,
      lr: flags.lr,
      batch: flags.batch,
      limit: flags.limit,
      testLimit: flags['test-limit'],
      onProgress: (done, total) => progress.update(done, total, `epochs of ${4 * flags.seeds} models`),
    });
    progress.done();
    const v = verdicts(r);
    if (json) {
      const { last: _models, ...numbers } = r; // the trained tensors stay out of the JSON
      io.out(JSON.stringify({ ...numbers, verdicts: v }) + '\n');
      return 0;
    }
    io.out(`data     ${r.data}, ${r.runs.length} seeds (${r.split}), ${r.epochs} epochs each\n`);
    io.out(`teacher  ${r.teacher}  (${r.teacherParameters} parameters)\n`);
    io.out(`student  ${r.student}  (${r.studentParameters} parameters)\n`);
    io.out(`T = ${r.temperature}, α = ${r.alpha}, hint β = ${r.beta} through η = ${r.eta}\n\n`);
    const s = r.summary;
    io.out(
      table(
        ['model', 'held-out accuracy (mean ± sd)'],
        [
          ['teacher', ms(s.teacher)],
          ['(a) student alone', ms(s.alone)],
          ['(b) student, Hinton KD', ms(s.distilled)],
          ['(c) student, KD + hint through η', ms(s.hinted)],
        ],
      ) + '\n\n',
    );
    for (const x of v)
      io.out(
        `${x.variant === 'distilled' ? '(b) KD' : '(c) KD + hint'} vs alone: ${x.meanDifference >= 0 ? '+' : ''}${fmt(x.meanDifference, 3)} ± ${fmt(x.standardError, 2)} (s.e.) → ${x.verdict}\n`,
      );
    return 0;
  },
});
