import { featureStats, oneHot, standardize, stratifiedSplit, subset } from '../../data/dataset.js';
import type { Dataset } from '../../data/dataset.js';
import { DataError, RangeArgError, ShapeError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import { softmaxCrossEntropy } from '../../nn/loss.js';
import { seq } from '../../para/composite.js';
import { describeShape } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { parseSpec } from '../../catalogue/index.js';
import type { Tensor } from '../../tensor/tensor.js';
import { accuracy } from '../../train/metrics.js';
import { checkAdapter } from '../../nn/natural/adapter.js';
import { distillationLoss, distillationTarget } from '../../natural/distill-loss.js';
import { fitWithLoss } from './fit.js';

export interface DistillOptions {
  /** Teacher spec; default `dense(d,64) >> relu >> dense(64,64) >> relu >> dense(64,C)`. */
  teacher?: string;
  /** Student spec; default `dense(d,4) >> relu >> dense(4,C)`. */
  student?: string;
  temperature?: number;
  alpha?: number;
  /** Weight β of the FitNets hint. */
  beta?: number;
  /** Number of seeds (splits and initialisations); each result is averaged over them. */
  seeds?: number;
  /** First seed. */
  seed?: number;
  epochs?: number;
  lr?: number;
  batch?: number;
  /** Component η of the hint (student features → teacher features); default adapter(p_S, p_T). */
  eta?: string;
  /** Told after every epoch of every model: epochs done and in all (four models per seed: the teacher and the three students). */
  onProgress?: (done: number, total: number) => void;
  /**
   * Training rows per seed: a seeded random subset of this size (default: all). With a
   * data set that carries its own `test` split (Fashion-MNIST), that split is the held-out
   * set for every seed; otherwise each seed makes a stratified 80/20 split.
   */
  limit?: number;
  /** Held-out rows used from a fixed `test` split (default: all). */
  testLimit?: number;
}

/** The models of the last seed, for inspecting the learned natural transformation. */
export interface DistillModels {
  teacherBody: Para;
  teacherTheta: Tensor[];
  studentBody: Para;
  /** The student trained with the hint (c). */
  studentTheta: Tensor[];
  eta: Para;
  etaTheta: Tensor[];
  /** All rows of the data, standardised like the last seed's training part. */
  x: Tensor;
}

export interface DistillRun {
  seed: number;
  teacher: number;
  alone: number;
  distilled: number;
  hinted: number;
}

export interface MeanSpread {
  mean: number;
  std: number;
}

export interface DistillReport {
  data: string;
  teacher: string;
  student: string;
  eta: string;
  temperature: number;
  alpha: number;
  beta: number;
  epochs: number;
  /** How the rows were split, e.g. 'stratified 80/20 splits, 120 training / 30 held-out rows'. */
  split: string;
  teacherParameters: number;
  studentParameters: number;
  runs: DistillRun[];
  last: DistillModels;
  /** Held-out accuracy over seeds, mean and sample standard deviation. */
  summary: Record<'teacher' | 'alone' | 'distilled' | 'hinted', MeanSpread>;
}

/** The training and held-out rows of one seed (see DistillOptions.limit). */
function splitFor(data: Dataset, seed: number, limit?: number, testLimit?: number): { train: Dataset; test: Dataset } {
  const fixed = (data as Dataset & { test?: Dataset }).test;
  const take = (ds: Dataset, n: number | undefined, rng: Rng): Dataset => {
    if (n === undefined || n >= ds.x.batch) return ds;
    if (!(Number.isInteger(n) && n > 0)) throw new RangeArgError(`distillation: the row limit must be a positive integer, got ${n}`);
    const idx = rng.shuffle(Int32Array.from({ length: ds.x.batch }, (_, i) => i)) as Int32Array;
    return subset(ds, idx.subarray(0, n));
  };
  const rng = new Rng(seed + 104729);
  if (fixed) return { train: take(data, limit, rng), test: take(fixed, testLimit, new Rng(0)) };
  const split = stratifiedSplit(data, 0.2, seed);
  return { train: take(split.train, limit, rng), test: split.test };
}

/** body >> head of a composite model, split before its last morphism (the hidden layer is the body's output). */
export function splitHead(m: Para, role: string): { body: Para; head: Para } {
  if (m.kind !== 'seq' || m.children.length < 2)
    throw new ShapeError(`${role} ${m} has no hidden layer: give a composite such as dense(4,8) >> relu >> dense(8,3)`);
  const cs = m.children;
  return { body: cs.length === 2 ? cs[0]! : seq(...cs.slice(0, -1)), head: cs[cs.length - 1]! };
}

export function meanSpread(xs: readonly number[]): MeanSpread {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const v = xs.length > 1 ? xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) : 0;
  return { mean, std: Math.sqrt(v) };
}

const size = (s: readonly number[] | undefined): number => (s ? s.reduce((a, b) => a * b, 1) : -1);

/**
 * Knowledge distillation, for real (seed 000, §Natural transformations): on a
 * classification data set, over several seeds (each a stratified 80/20 split, or the data
 * set's own test split; standardised on the training part), train a teacher, then the same student from the same
 * initialisation (a) alone on the labels, (b) on the Hinton et al. loss, (c) on (b) plus a
 * FitNets hint through a learned natural transformation η from the student's to the
 * teacher's hidden features. Reports held-out accuracy of each.
 */
export function distill(data: Dataset, opts: DistillOptions = {}): DistillReport {
  if (!data.labels) throw new DataError(`distillation needs a classification data set; ${data.name} has no class labels`);
  const T = opts.temperature ?? 4,
    alpha = opts.alpha ?? 0.9,
    beta = opts.beta ?? 1;
  const loss = distillationLoss(T, alpha); // validates T and α before any training
  const C = Math.max(2, ...Array.from(data.labels, (l) => l + 1));
  const d = size(data.x.shape.slice(1));
  const teacherSpec = opts.teacher ?? `dense(${d},64) >> relu >> dense(64,64) >> relu >> dense(64,${C})`;
  const studentSpec = opts.student ?? `dense(${d},4) >> relu >> dense(4,${C})`;
  const teacher = parseSpec(teacherSpec).at(data.x.shape.slice(1));
  const student = parseSpec(studentSpec).at(data.x.shape.slice(1));
  if (size(teacher.cod) !== size(student.cod)) {
    throw new ShapeError(
      `distillation: the teacher ${teacherSpec} outputs ${describeShape(teacher.cod)} but the student ${studentSpec} outputs ${describeShape(student.cod)}; they must have the same number of outputs`,
    );
  }
  if (size(student.cod) !== C) throw new ShapeError(`distillation: ${data.name} has ${C} classes but the models output ${describeShape(student.cod)}`);
  const ts = splitHead(teacher, 'the teacher'),
    ss = splitHead(student, 'the student');
  const pT = size(ts.body.cod),
    pS = size(ss.body.cod);
  const etaSpec = opts.eta ?? `adapter(${pS},${pT})`;
  const eta = checkAdapter(parseSpec(etaSpec), pS, pT, 'the hint η (student features → teacher features)');
  const n = opts.seeds ?? 5,
    seed0 = opts.seed ?? 0;
  const epochs = opts.epochs ?? 150,
    lr = opts.lr ?? 0.01,
    batch = opts.batch ?? 16;
  const runs: DistillRun[] = [];
  let last: DistillModels | undefined;
  let splitNote = '';
  for (let k = 0; k < n; k++) {
    const seed = seed0 + k;
    const split = splitFor(data, seed, opts.limit, opts.testLimit);
    const fixed = (data as Dataset & { test?: Dataset }).test !== undefined;
    splitNote = `${fixed ? 'its own test split' : 'stratified 80/20 splits'}, ${split.train.x.batch} training / ${split.test.x.batch} held-out rows`;
    const stats = featureStats(split.train.x);
    const tr = standardize(split.train, stats),
      te = standardize(split.test, stats);
    const y = oneHot(tr.labels!, C);
    // the j-th of this seed's four fits reports its epochs as a share of all of them
    const fit = (j: number) => ({
      epochs,
      lr,
      batch,
      seed,
      onEpoch: opts.onProgress && ((e: number) => opts.onProgress!((4 * k + j) * epochs + e, 4 * n * epochs)),
    });
    const acc = (m: Para, th: Tensor[]): number => accuracy(m.run(th, te.x), te.labels!, true);
    const thT = teacher.init(seed + 7919);
    fitWithLoss(teacher, thT, tr.x, y, softmaxCrossEntropy, fit(0));
    const tLogits = teacher.run(thT, tr.x);
    const tHidden = ts.body.run(thT.slice(0, ts.body.params.length), tr.x);
    const target = distillationTarget(y, tLogits);
    const th0 = student.init(seed);
    const thA = th0.map((t) => t.clone()),
      thB = th0.map((t) => t.clone()),
      thC = th0.map((t) => t.clone());
    fitWithLoss(student, thA, tr.x, y, softmaxCrossEntropy, fit(1));
    fitWithLoss(student, thB, tr.x, target, loss, fit(2));
    const etaTheta = eta.init(seed + 1);
    fitWithLoss(student, thC, tr.x, target, loss, { ...fit(3), hint: { ...ss, eta, etaTheta, teacherHidden: tHidden, beta } });
    last = {
      teacherBody: ts.body,
      teacherTheta: thT.slice(0, ts.body.params.length),
      studentBody: ss.body,
      studentTheta: thC.slice(0, ss.body.params.length),
      eta,
      etaTheta,
      x: standardize(
        subset(
          data,
          Array.from({ length: Math.min(data.x.batch, 2000) }, (_, i) => i),
        ),
        stats,
      ).x,
    };
    runs.push({ seed, teacher: acc(teacher, thT), alone: acc(student, thA), distilled: acc(student, thB), hinted: acc(student, thC) });
  }
  const col = (key: keyof Omit<DistillRun, 'seed'>): MeanSpread => meanSpread(runs.map((r) => r[key]));
  return {
    data: data.name,
    teacher: String(parseSpec(teacherSpec)),
    student: String(parseSpec(studentSpec)),
    eta: etaSpec,
    temperature: T,
    alpha,
    beta,
    epochs,
    split: splitNote,
    teacherParameters: teacher.params.reduce((a, p) => a + size(p.shape), 0),
    studentParameters: student.params.reduce((a, p) => a + size(p.shape), 0),
    runs,
    last: last!,
    summary: { teacher: col('teacher'), alone: col('alone'), distilled: col('distilled'), hinted: col('hinted') },
  };
}

/** The paired difference of a variant and the student alone over seeds, and what it says. */
export interface Verdict {
  variant: 'distilled' | 'hinted';
  meanDifference: number;
  /** Standard error of the mean paired difference. */
  standardError: number;
  /** 'helped' / 'hurt' when the mean paired difference is beyond two standard errors, else 'no clear difference'. */
  verdict: 'helped' | 'hurt' | 'no clear difference';
}

export function verdicts(report: DistillReport): Verdict[] {
  return (['distilled', 'hinted'] as const).map((variant) => {
    const diffs = report.runs.map((r) => r[variant] - r.alone);
    const { mean, std } = meanSpread(diffs);
    const se = std / Math.sqrt(diffs.length);
    const verdict = diffs.length > 1 && mean > 2 * se && mean > 0 ? 'helped' : diffs.length > 1 && mean < -2 * se && mean < 0 ? 'hurt' : 'no clear difference';
    return { variant, meanDifference: mean, standardError: se, verdict };
  });
}
