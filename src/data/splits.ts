import { DataError } from '../errors.js';
import { stratifiedSplit } from './dataset.js';
import type { Dataset } from './dataset.js';
import { applyPreprocessing, fitStatistics } from './preprocessing.js';
import type { Preprocessing } from './preprocessing.js';

/**
 * A data set as a source gives it. For a file, `data` holds raw inputs (numbers as written,
 * categories one-hot, pixels 0…255) and `preprocessing` says how they become model inputs
 * (fitted on the training rows by trainingSplits); built-in sets are model inputs already.
 * `test` is a fixed test split where the source has one (Fashion-MNIST's 10 000 images).
 */
export interface LoadedData {
  data: Dataset;
  /** A fixed validation split, where the source has one (nbody's 2 000 trajectories). */
  validation?: Dataset;
  test?: Dataset;
  preprocessing?: Preprocessing;
  /** Why the inputs are scaled otherwise than the saved preprocessing says (predict on floats already in [0,1]). */
  scalingNote?: string;
}

/** A data set with this many rows or more and no test split of its own gets a stratified 20 % one. */
const TEST_SPLIT_MIN_ROWS = 20;

/** What a training command trains on, holds out and tests on, all in model inputs, and the preprocessing fitted on the training rows. */
export interface TrainingSplits {
  train: Dataset;
  validation?: Dataset;
  test?: Dataset;
  preprocessing?: Preprocessing;
}

/**
 * The splits of `train`: the source's own test split, else a stratified seeded 20 % one
 * (data sets of TEST_SPLIT_MIN_ROWS rows or more); then `valFraction` of the remaining rows
 * held out for validation (stratified, seeded). The preprocessing's means and stds are fitted
 * on the training rows alone and applied to all three, so nothing of the held-out rows leaks
 * into the standardisation.
 */
export function trainingSplits(l: LoadedData, opts: { seed: number; valFraction?: number }): TrainingSplits {
  let train = l.data;
  let test = l.test;
  if (!test && train.x.batch >= TEST_SPLIT_MIN_ROWS) ({ train, test } = stratifiedSplit(train, 0.2, opts.seed));
  let validation = opts.valFraction ? undefined : l.validation;
  if (opts.valFraction) {
    const held = Math.round(train.x.batch * opts.valFraction);
    if (held < 1 || held >= train.x.batch)
      throw new DataError(
        `--val-fraction ${opts.valFraction} of ${train.x.batch} training rows holds out ${held}; choose a fraction that leaves rows on both sides`,
      );
    ({ train, test: validation } = stratifiedSplit(train, opts.valFraction, opts.seed + 1));
    validation = { ...validation, name: `${l.data.name}/validation` };
  }
  if (!l.preprocessing) return { train, validation, test };
  const preprocessing = fitStatistics(l.preprocessing, train);
  // every set here is a fresh copy (a split, or the loader's own arrays): standardise in place
  const ready = (d: Dataset | undefined): Dataset | undefined => d && applyPreprocessing(preprocessing, d, { inPlace: true });
  return { train: ready(train)!, validation: ready(validation), test: ready(test), preprocessing };
}
