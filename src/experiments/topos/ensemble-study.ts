import { featureStats, standardize, stratifiedSplit } from '../../data/dataset.js';
import type { Dataset } from '../../data/dataset.js';
import { DataError, RangeArgError } from '../../errors.js';
import { classCount, expertProbabilities, sectionsAt, trainEnsemble } from './ensemble.js';
import type { EnsembleOptions, Expert } from './ensemble.js';
import { argmax } from '../../train/metrics.js';
import { auroc } from '../../topos/gluing/ensemble-metrics.js';
import { checkTolerance, sectionDistance, gluingThreshold, contextsOverlap, agreesWithin, meanSection } from '../../topos/gluing/glue.js';
import { maximalConsistentSubset } from '../../topos/gluing/consistent.js';

/** What happened on one held-out row. */
export interface HeldOutRecord {
  /** The smallest ε at which the experts' sections glue (largest overlapping disagreement). */
  readonly disagreement: number;
  /** The ensemble's answer (argmax of the mean section) is wrong. */
  readonly wrong: boolean;
  /** The answer of the maximum consistent subset at the study's tolerance is wrong. */
  readonly wrongConsistent: boolean;
}

/** Error rates on glued and non-glued rows at one tolerance. */
export interface ToleranceRow {
  readonly tolerance: number;
  readonly glued: number;
  readonly notGlued: number;
  /** Error rate of the ensemble on rows whose sections glue (undefined if there are none). */
  readonly errorGlued: number | undefined;
  readonly errorNotGlued: number | undefined;
}

export interface GluingStudy {
  readonly data: string;
  readonly experts: number;
  readonly featuresPerExpert: number;
  readonly tolerance: number;
  readonly splits: number;
  readonly heldOut: number;
  /** Contexts (feature names) of the experts of the first split. */
  readonly contexts: readonly (readonly string[])[];
  /** Held-out accuracy of each expert, pooled over the splits. */
  readonly expertAccuracy: readonly number[];
  /** Held-out accuracy of the mean section (the glued prediction where it exists). */
  readonly ensembleAccuracy: number;
  /** At the requested tolerance. */
  readonly atTolerance: ToleranceRow;
  /** On the non-glued rows: the error rate of the maximum consistent subset's answer instead. */
  readonly errorNotGluedConsistent: number | undefined;
  /** AUROC of the disagreement score for predicting a wrong answer (undefined if no or only wrong answers). */
  readonly auroc: number | undefined;
  readonly wrong: number;
  /** The same rates at other tolerances (from the disagreement scores). */
  readonly sweep: readonly ToleranceRow[];
  /** Mean pairwise ‖pᵢ − pⱼ‖∞ over held-out rows of the first split (null for disjoint contexts): a matrix to plot. */
  readonly agreement: readonly (readonly (number | null)[])[];
}

export interface StudyOptions extends EnsembleOptions {
  tolerance: number;
  /** Number of seeded stratified splits whose held-out rows are pooled (default 5); ignored with `test`. */
  splits?: number;
  /** Held-out fraction per split (default 0.2). */
  testFraction?: number;
  /** A fixed test set (e.g. Fashion-MNIST's): one run, no splitting. */
  test?: Dataset;
  /** Called after each split (progress). */
  onSplit?: (done: number, total: number) => void;
}

/** Runs the experts on held-out rows and records, per row, the disagreement and whether the answers are wrong. */
export function heldOutRecords(
  experts: readonly Expert[],
  test: Dataset,
  tolerance: number,
): { records: HeldOutRecord[]; correct: number[]; agreement: (number | null)[][] } {
  const C = classCount(test);
  const probs = expertProbabilities(experts, test);
  const K = experts.length;
  const correct = new Array<number>(K).fill(0);
  const sums = Array.from({ length: K }, () => new Array<number>(K).fill(0));
  const records: HeldOutRecord[] = [];
  for (let i = 0; i < test.x.batch; i++) {
    const S = sectionsAt(experts, probs, i, C);
    const label = test.labels![i]!;
    S.forEach((s, k) => (correct[k]! += argmax(s.prediction) === label ? 1 : 0));
    const mean = meanSection(
      S,
      S.map((_, k) => k),
    ).prediction;
    const disagreement = gluingThreshold(S);
    let wrongConsistent = argmax(mean) !== label;
    if (!agreesWithin(disagreement, tolerance)) wrongConsistent = argmax(maximalConsistentSubset(S, tolerance).section.prediction) !== label;
    records.push({ disagreement, wrong: argmax(mean) !== label, wrongConsistent });
    for (let a = 0; a < K; a++) for (let b = 0; b < K; b++) sums[a]![b]! += sectionDistance(S[a]!.prediction, S[b]!.prediction);
  }
  const ctx = experts.map((e) => new Set(e.context));
  const agreement = sums.map((row, a) => row.map((v, b) => (a === b || contextsOverlap(ctx[a]!, ctx[b]!) ? v / Math.max(1, test.x.batch) : null)));
  return { records, correct, agreement };
}

/** Error rates on glued vs non-glued rows at tolerance ε. */
export function toleranceRow(records: readonly HeldOutRecord[], tolerance: number): ToleranceRow {
  const glued = records.filter((r) => agreesWithin(r.disagreement, tolerance));
  const rest = records.filter((r) => !agreesWithin(r.disagreement, tolerance));
  const rate = (rs: readonly HeldOutRecord[]): number | undefined => (rs.length ? rs.filter((r) => r.wrong).length / rs.length : undefined);
  return { tolerance, glued: glued.length, notGlued: rest.length, errorGlued: rate(glued), errorNotGlued: rate(rest) };
}

/**
 * Gluing failure as an error detector (beyond seed 000): train a sheaf ensemble on each of
 * several seeded stratified splits (standardised with training statistics), pool the held-out
 * rows, and report the error rate where the experts' sections glue at ε versus where they do
 * not, and the AUROC of the disagreement score (the smallest ε that glues) for predicting a
 * wrong answer.
 */
export function sheafEnsembleStudy(data: Dataset, opts: StudyOptions): GluingStudy {
  const tolerance = checkTolerance(opts.tolerance);
  const splits = opts.test ? 1 : (opts.splits ?? 5);
  if (!(Number.isInteger(splits) && splits >= 1)) throw new RangeArgError(`splits must be a positive integer, got ${splits}`);
  const seed = opts.seed ?? 0;
  const records: HeldOutRecord[] = [];
  const correct = new Array<number>(opts.experts).fill(0);
  let contexts: string[][] = [],
    agreement: (number | null)[][] = [],
    heldOut = 0,
    m = 0;
  for (let s = 0; s < splits; s++) {
    const split = opts.test ? { train: data, test: opts.test } : stratifiedSplit(data, opts.testFraction ?? 0.2, seed + s);
    if (split.test.x.batch === 0) {
      throw new DataError(
        `${data.name}: the held-out set is empty (${data.x.batch} rows, test fraction ${opts.testFraction ?? 0.2}); gluing as an error detector needs held-out rows`,
      );
    }
    const stats = featureStats(split.train.x);
    const experts = trainEnsemble(standardize(split.train, stats), { ...opts, seed: seed + 1000 * s });
    const r = heldOutRecords(experts, standardize(split.test, stats), tolerance);
    records.push(...r.records);
    r.correct.forEach((c, k) => (correct[k]! += c));
    heldOut += split.test.x.batch;
    if (s === 0) {
      contexts = experts.map((e) => [...e.context]);
      agreement = r.agreement;
      m = experts[0]!.features.length;
    }
    opts.onSplit?.(s + 1, splits);
  }
  const wrong = records.filter((r) => r.wrong).length;
  const notGlued = records.filter((r) => !agreesWithin(r.disagreement, tolerance));
  const sweepTols = [...new Set([0.02, 0.05, 0.1, 0.2, 0.3, 0.5, tolerance])].sort((a, b) => a - b);
  return {
    data: data.name,
    experts: opts.experts,
    featuresPerExpert: m,
    tolerance,
    splits,
    heldOut,
    contexts,
    expertAccuracy: correct.map((c) => c / heldOut),
    ensembleAccuracy: 1 - wrong / heldOut,
    atTolerance: toleranceRow(records, tolerance),
    errorNotGluedConsistent: notGlued.length ? notGlued.filter((r) => r.wrongConsistent).length / notGlued.length : undefined,
    auroc: auroc(
      records.map((r) => r.disagreement),
      records.map((r) => r.wrong),
    ),
    wrong,
    sweep: sweepTols.map((t) => toleranceRow(records, t)),
    agreement,
  };
}
