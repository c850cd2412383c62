import type { Tensor } from '../tensor/tensor.js';

/**
 * Predicted class per row: argmax for several outputs; for one output, 1 when it passes
 * the threshold (0 for logits, 0.5 for probabilities).
 */
export function predictClasses(y: Tensor, logits: boolean): Int32Array {
  const B = y.batch,
    C = y.size / B;
  const out = new Int32Array(B);
  for (let b = 0; b < B; b++) out[b] = C === 1 ? (y.data[b]! > (logits ? 0 : 0.5) ? 1 : 0) : argmax(y.data, b * C, C);
  return out;
}

/**
 * The index (0 … n−1) of the largest of x[offset … offset+n−1]; the first one on ties, and
 * NaN entries never win. Defaults: the whole of x.
 */
export function argmax(x: ArrayLike<number>, offset = 0, n = x.length - offset): number {
  let best = 0;
  for (let c = 1; c < n; c++) if (x[offset + c]! > x[offset + best]!) best = c;
  return best;
}

/** Fraction of rows whose predicted class equals the label. */
export function accuracy(y: Tensor, labels: Int32Array, logits: boolean): number {
  const p = predictClasses(y, logits);
  let ok = 0;
  for (let i = 0; i < p.length; i++) if (p[i] === labels[i]) ok++;
  return ok / p.length;
}
