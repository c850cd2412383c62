import { RangeArgError } from '../errors.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { applyLink } from '../nn/link.js';
import type { Link } from '../nn/link.js';
import { Tensor } from '../tensor/tensor.js';
import { checkSamples } from './expectation.js';
import { Rng } from '../random/rng.js';

export interface McPrediction {
  /** Mean over samples of link(F(θ, x)), [N, k]. */
  readonly mean: Tensor;
  /** Sample standard deviation (n−1) over samples, [N, k]; zeros when samples = 1. */
  readonly std: Tensor;
  readonly samples: number;
}

/**
 * Monte Carlo prediction (seed 000, §Markov: "multiple stochastic forward passes"): runs the
 * model n times in training mode — dropout masks and Bayesian weights are resampled on each
 * pass from a child stream of `rng` — and returns the per-output mean and standard deviation of
 * link(y). The standard deviation is the model's epistemic uncertainty about its parameters.
 */
export function mcPredict(model: Para, theta: readonly Tensor[], x: Tensor, opts: { samples: number; rng: Rng | number; link?: Link }): McPrediction {
  checkSamples(opts.samples);
  const rng = typeof opts.rng === 'number' ? new Rng(opts.rng) : opts.rng;
  const link = opts.link ?? 'identity';
  let mean: Float64Array | undefined,
    m2: Float64Array | undefined,
    shape: readonly number[] = [];
  for (let s = 0; s < opts.samples; s++) {
    const y = applyLink(model.forward(theta, x, makeCtx({ training: true, rng: rng.split() })).y, link);
    if (!mean) {
      mean = new Float64Array(y.size);
      m2 = new Float64Array(y.size);
      shape = y.shape;
    }
    for (let i = 0; i < y.size; i++) {
      const v = y.data[i]!;
      if (!Number.isFinite(v)) throw new RangeArgError(`mcPredict: sample ${s + 1} produced ${v} at output ${i}; expected finite outputs`);
      const d = v - mean[i]!;
      mean[i]! += d / (s + 1);
      m2![i]! += d * (v - mean[i]!);
    }
  }
  const std = new Float64Array(mean!.length);
  if (opts.samples > 1) for (let i = 0; i < std.length; i++) std[i] = Math.sqrt(m2![i]! / (opts.samples - 1));
  return { mean: new Tensor(mean!, shape), std: new Tensor(std, shape), samples: opts.samples };
}

/** The deterministic prediction: one pass in evaluation mode (dropout off, Bayesian weights at μ). */
export function evalPredict(model: Para, theta: readonly Tensor[], x: Tensor, link: Link = 'identity'): Tensor {
  return applyLink(model.run(theta, x), link);
}
