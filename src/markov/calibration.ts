import { RangeArgError, ShapeError } from '../errors.js';
import type { Tensor } from '../tensor/tensor.js';
import { accuracy, predictClasses } from '../train/metrics.js';

/** Floor for probabilities inside a logarithm (so a confidently wrong model has a large but finite NLL). */
export const PROB_FLOOR = 1e-12;

/**
 * The predicted class and its probability for each row of a probability tensor: rows of k ≥ 2
 * class probabilities, or one column p = P(class 1) for binary problems (then class 1 iff p > ½).
 */
export function confidences(probs: Tensor): { predicted: Int32Array; confidence: Float64Array; probOf: (row: number, cls: number) => number } {
  const N = probs.batch,
    k = probs.size / N;
  const predicted = predictClasses(probs, false),
    confidence = new Float64Array(N);
  const probOf = (r: number, c: number): number => (k === 1 ? (c === 1 ? probs.data[r]! : 1 - probs.data[r]!) : probs.data[r * k + c]!);
  for (let r = 0; r < N; r++) {
    if (k === 1) {
      const p = probs.data[r]!;
      confidence[r] = Math.max(p, 1 - p);
    } else confidence[r] = probs.data[r * k + predicted[r]!]!;
  }
  return { predicted, confidence, probOf };
}

function checkLabels(probs: Tensor, labels: Int32Array): void {
  if (probs.batch !== labels.length) throw new ShapeError(`calibration: ${probs.batch} rows of probabilities but ${labels.length} labels`);
}

/**
 * Expected calibration error (Guo et al. 2017, eq. 3): the confidences are binned into
 * `bins` equal-width bins of [0, 1]; ECE = Σ_b (|B_b|/N)·|acc(B_b) − conf(B_b)|.
 */
export function expectedCalibrationError(probs: Tensor, labels: Int32Array, bins = 15): number {
  checkLabels(probs, labels);
  if (!(Number.isInteger(bins) && bins > 0)) throw new RangeArgError(`ECE: bins must be a positive integer, got ${bins}`);
  const { predicted, confidence } = confidences(probs);
  const count = new Float64Array(bins),
    correct = new Float64Array(bins),
    conf = new Float64Array(bins);
  for (let r = 0; r < labels.length; r++) {
    const b = Math.min(bins - 1, Math.max(0, Math.ceil(confidence[r]! * bins) - 1));
    count[b]!++;
    conf[b]! += confidence[r]!;
    if (predicted[r] === labels[r]) correct[b]!++;
  }
  let ece = 0;
  for (let b = 0; b < bins; b++) if (count[b]! > 0) ece += Math.abs(correct[b]! - conf[b]!) / labels.length;
  return ece;
}

/** Mean negative log-likelihood −(1/N) Σ log p(yᵢ | xᵢ) of the true labels (probabilities floored at PROB_FLOOR). */
export function negativeLogLikelihood(probs: Tensor, labels: Int32Array): number {
  checkLabels(probs, labels);
  const { probOf } = confidences(probs);
  let s = 0;
  for (let r = 0; r < labels.length; r++) s -= Math.log(Math.max(PROB_FLOOR, probOf(r, labels[r]!)));
  return s / labels.length;
}

/** Fraction of rows whose most probable class is the label. */
export function probAccuracy(probs: Tensor, labels: Int32Array): number {
  checkLabels(probs, labels);
  return accuracy(probs, labels, false);
}
