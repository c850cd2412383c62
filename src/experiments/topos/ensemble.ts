import { oneHot, subset } from '../../data/dataset.js';
import type { Dataset } from '../../data/dataset.js';
import { DataError, RangeArgError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import { softmaxCrossEntropy } from '../../nn/loss.js';
import { softmaxRows } from '../../nn/softmax.js';
import type { Para } from '../../para/para.js';
import { seq } from '../../para/composite.js';
import { tanh } from '../../nn/activation.js';
import { dense } from '../../nn/dense.js';
import { Tensor } from '../../tensor/tensor.js';
import { predict } from '../../train/trainer.js';
import { train } from '../../train/train.js';
import type { CheckedSection } from '../../topos/gluing/glue.js';

/**
 * One expert of a sheaf ensemble: a classifier trained on a bootstrap sample of the rows,
 * seeing only its context — a subset of the features (the open set U of its section).
 */
export interface Expert {
  readonly name: string;
  /** Feature indices the expert sees: its context. */
  readonly features: readonly number[];
  /** Feature names of the context (indices as strings when the data set has no names). */
  readonly context: readonly string[];
  readonly model: Para;
  readonly theta: Tensor[];
  readonly trainAccuracy: number | undefined;
}

export interface EnsembleOptions {
  /** Number of experts K (≥ 2). */
  experts: number;
  /** Features per expert (default min(d − 1, ⌈3d/4⌉) for d ≥ 3: more than half, so every two contexts overlap; else d). */
  features?: number;
  /** Train each expert on a bootstrap sample of the rows (default true). */
  bootstrap?: boolean;
  hidden?: number;
  epochs?: number;
  lr?: number;
  batch?: number;
  seed?: number;
}

/** Number of classes of a labelled data set (throws a DataError for regression data). */
export function classCount(ds: Dataset): number {
  if (!ds.labels) throw new DataError(`${ds.name} has no class labels; a sheaf ensemble of classifiers needs a classification data set`);
  return ds.classes?.length ?? ds.labels.reduce((m, l) => Math.max(m, l), 0) + 1;
}

/** The columns `features` of a data set's inputs [N, d], with one-hot targets over `classes`. */
export function restrictFeatures(ds: Dataset, features: readonly number[], classes: number): Dataset {
  const N = ds.x.batch,
    d = ds.x.size / Math.max(1, N);
  const x = Tensor.zeros([N, features.length]);
  for (let i = 0; i < N; i++) features.forEach((f, k) => (x.data[i * features.length + k] = ds.x.data[i * d + f]!));
  return { ...ds, x, y: oneHot(ds.labels!, classes), featureNames: features.map((f) => ds.featureNames?.[f] ?? String(f)) };
}

/**
 * Trains K experts (beyond seed 000, whose experts are fixed numbers): expert k sees a seeded
 * random subset of the features — its context — and learns from a bootstrap sample of the
 * rows; each is dense(m, h) >> tanh >> dense(h, C) trained with softmax cross-entropy and Adam.
 */
export function trainEnsemble(data: Dataset, opts: EnsembleOptions): Expert[] {
  const K = opts.experts;
  if (!(Number.isInteger(K) && K >= 2)) throw new RangeArgError(`a sheaf ensemble needs an integer number of experts ≥ 2, got ${K}`);
  const C = classCount(data);
  const N = data.x.batch,
    d = data.x.size / Math.max(1, N);
  if (N === 0) throw new DataError(`${data.name}: no training rows`);
  const m = opts.features ?? (d >= 3 ? Math.min(d - 1, Math.ceil(0.75 * d)) : d);
  if (!(Number.isInteger(m) && m >= 1 && m <= d)) throw new RangeArgError(`features per expert must be an integer in [1, ${d}] for ${data.name}, got ${m}`);
  const large = N > 2000;
  const hidden = opts.hidden ?? (large ? 32 : 16);
  const rng = new Rng(opts.seed ?? 0);
  return Array.from({ length: K }, (_, k) => {
    const r = rng.split();
    const features = (r.shuffle(Array.from({ length: d }, (_, i) => i)) as number[]).slice(0, m).sort((a, b) => a - b);
    const rows = opts.bootstrap === false ? Array.from({ length: N }, (_, i) => i) : Array.from({ length: N }, () => r.int(N));
    const local = restrictFeatures(subset(data, rows), features, C);
    const model = seq(dense(m, hidden), tanh(), dense(hidden, C));
    const res = train(model, local, {
      loss: softmaxCrossEntropy,
      optimizer: 'adam',
      lr: opts.lr ?? 0.01,
      epochs: opts.epochs ?? (large ? 5 : 100),
      batch: opts.batch ?? (large ? 64 : 16),
      seed: r.int(2 ** 31),
    });
    return { name: `E${k + 1}`, features, context: local.featureNames!, model: res.model, theta: res.theta, trainAccuracy: res.accuracy };
  });
}

/** Each expert's class probabilities on the rows of `ds` ([N·C] per expert). */
export function expertProbabilities(experts: readonly Expert[], ds: Dataset): Float64Array[] {
  const C = classCount(ds);
  return experts.map((e) => {
    const logits = predict(e.model, e.theta, restrictFeatures(ds, e.features, C).x);
    const p = new Float64Array(logits.size);
    softmaxRows(Float64Array.from(logits.data), logits.batch, C, p);
    return p;
  });
}

/** The experts' sections at row `i`: (context, class-probability vector). */
export function sectionsAt(experts: readonly Expert[], probs: readonly Float64Array[], i: number, classes: number): CheckedSection[] {
  return experts.map((e, k) => ({ name: e.name, context: new Set(e.context), prediction: probs[k]!.slice(i * classes, (i + 1) * classes) }));
}
