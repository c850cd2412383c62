import { stratifiedSplit } from '../../data/dataset.js';
import type { Dataset } from '../../data/dataset.js';
import { DataError } from '../../errors.js';
import { Tensor } from '../../tensor/tensor.js';
import { expectedCalibrationError, negativeLogLikelihood, probAccuracy } from '../../markov/calibration.js';
import { checkSamples } from '../../markov/expectation.js';
import { fitMethod, meanStd } from './uncertainty.js';
import type { UncertaintyFitOptions, UncertaintyMethod } from './uncertainty.js';
import { gapProbes, gapRegression, awayFromData, standardizeSplit } from '../../markov/ood.js';

/** Held-out quality and uncertainty of one method on one classification data set. */
export interface UncertaintyReport {
  readonly data: string;
  readonly method: UncertaintyMethod;
  /** The model's spec string. */
  readonly model: string;
  /** Seconds spent fitting and predicting. */
  readonly seconds: number;
  readonly trainRows: number;
  readonly testRows: number;
  readonly samples: number;
  readonly accuracy: number;
  /** Mean negative log-likelihood of the held-out labels under the predictive mean. */
  readonly nll: number;
  /** Expected calibration error, 15 bins. */
  readonly ece: number;
  /** Mean predictive std (over outputs and points) on the held-out rows. */
  readonly stdIn: number;
  /** Mean predictive std on points away from the training inputs (see awayFromData). */
  readonly stdOut: number;
  readonly outRows: number;
}

/** Defaults used by the CLI and the tour for classification (measured in docs/markov.md). */
export const CLASSIFICATION_DEFAULTS = { hidden: 16, epochs: 400, lr: 0.02, batch: 16, p: 0.1, klWeight: 0.02, priorSigma: 1 } satisfies UncertaintyFitOptions;

/**
 * Splits `data` 70/30 (stratified, seeded), standardises with the training statistics, fits
 * `method`, and reports held-out accuracy, NLL, ECE (15 bins) and the mean predictive std on
 * the held-out rows and on 200 points away from the data (distance ≥ 1 in standardised units).
 */
export function uncertaintyReport(data: Dataset, method: UncertaintyMethod, opts: UncertaintyFitOptions & { samples?: number } = {}): UncertaintyReport {
  if (!data.labels) throw new DataError(`${data.name}: uncertainty reports need a classification data set (with labels)`);
  const samples = opts.samples ?? 100;
  checkSamples(samples, '--samples');
  const seed = opts.seed ?? 0;
  const t0 = performance.now();
  const split = standardizeSplit(stratifiedSplit(data, 0.3, seed));
  const f = fitMethod(method, split.train, { ...CLASSIFICATION_DEFAULTS, ...opts, seed });
  const away = awayFromData(split.train.x, 200, seed + 1, { minDist: 1, widen: 0.5 });
  const pt = f.predict(split.test.x, samples, seed + 2);
  const po = f.predict(away, samples, seed + 3);
  const labels = split.test.labels!;
  return {
    data: data.name,
    method,
    model: String(f.model),
    seconds: (performance.now() - t0) / 1000,
    trainRows: split.train.x.batch,
    testRows: split.test.x.batch,
    samples: method === 'deterministic' ? 1 : samples,
    accuracy: probAccuracy(pt.mean, labels),
    nll: negativeLogLikelihood(pt.mean, labels),
    ece: expectedCalibrationError(pt.mean, labels, 15),
    stdIn: meanStd(pt),
    stdOut: meanStd(po),
    outRows: away.batch,
  };
}

/** Predictive std near the data, in the gap and beyond, on gapRegression. */
export interface GapReport {
  readonly method: UncertaintyMethod;
  readonly near: number;
  readonly gap: number;
  readonly beyond: number;
  /** Mean std over all probes away from the data (gap and beyond). */
  readonly away: number;
  /** Root mean squared error of the predictive mean against sin(x) near the data. */
  readonly rmseNear: number;
  /** Predictive mean and std on a grid x = −6 … 6 (61 points), and the training points, for plots. */
  readonly curve: { x: number[]; mean: number[]; std: number[] };
  readonly train: { x: number[]; y: number[] };
}

/** Defaults for the gap regression: full ELBO (klWeight 1), Gaussian noise σ 0.1. */
export const REGRESSION_DEFAULTS: UncertaintyFitOptions = { hidden: 32, epochs: 800, lr: 0.01, batch: 32, p: 0.1, klWeight: 1, priorSigma: 1, noiseSigma: 0.1 };

/** Fits `method` to gapRegression(100 points) and measures its predictive std at the probes. */
export function gapReport(method: UncertaintyMethod, opts: UncertaintyFitOptions & { samples?: number } = {}): GapReport {
  const seed = opts.seed ?? 0,
    samples = opts.samples ?? 100;
  const data = gapRegression(100, 0.1, seed);
  const f = fitMethod(method, data, { ...REGRESSION_DEFAULTS, ...opts, seed });
  const pr = gapProbes();
  const near = f.predict(pr.near, samples, seed + 1);
  const gap = meanStd(f.predict(pr.gap, samples, seed + 2));
  const beyond = meanStd(f.predict(pr.beyond, samples, seed + 3));
  const nGap = pr.gap.batch,
    nBeyond = pr.beyond.batch;
  let se = 0;
  for (let i = 0; i < pr.near.size; i++) se += (near.mean.data[i]! - Math.sin(pr.near.data[i]!)) ** 2;
  const gx = Array.from({ length: 61 }, (_, i) => -6 + 0.2 * i);
  const grid = f.predict(Tensor.of(gx, [61, 1]), samples, seed + 4);
  return {
    method,
    near: meanStd(near),
    gap,
    beyond,
    away: (gap * nGap + beyond * nBeyond) / (nGap + nBeyond),
    rmseNear: Math.sqrt(se / pr.near.size),
    curve: { x: gx, mean: Array.from(grid.mean.data), std: Array.from(grid.std.data) },
    train: { x: Array.from(data.x.data), y: Array.from(data.y.data) },
  };
}
