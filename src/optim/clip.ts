import { RangeArgError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import type { Tensor } from '../tensor/tensor.js';

/** Checks a clipping norm: a positive finite number. */
export function checkClip(maxNorm: number): void {
  if (!(maxNorm > 0 && Number.isFinite(maxNorm))) throw new RangeArgError(`--clip must be a positive finite gradient norm, got ${maxNorm}`);
}

/**
 * Gradient clipping by the global norm, as PyTorch's clip_grad_norm_ does it: with
 * n = ‖(g₁, …, gₖ)‖₂ over every gradient tensor, each g is scaled by maxNorm/(n + 10⁻⁶) when that
 * is below 1, in place. Returns n (before clipping). The norm is summed in float64.
 */
export function clipByNorm(grads: readonly Tensor[], maxNorm: number): number {
  let ss = 0;
  for (const g of grads) {
    const d = g.data;
    for (let i = 0; i < d.length; i++) ss += d[i]! * d[i]!;
  }
  const norm = Math.sqrt(ss);
  const coef = maxNorm / (norm + 1e-6);
  if (coef < 1) {
    const be = backend();
    // g ← coef·g as g += (coef − 1)·g
    for (const g of grads) be.axpy(coef - 1, g.data, g.data);
  }
  return norm;
}
