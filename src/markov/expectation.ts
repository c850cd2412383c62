import { RangeArgError } from '../errors.js';
import type { Kernel } from './kernel.js';
import { Rng } from '../random/rng.js';

/** A Monte Carlo estimate: sample mean, sample standard deviation and the mean's standard error s/√n. */
export interface Estimate {
  readonly mean: number;
  readonly std: number;
  readonly stdError: number;
  readonly n: number;
}

/** Throws a RangeArgError unless n is a positive integer (sample counts, `--samples`). */
export function checkSamples(n: number, what = 'samples'): void {
  if (!(Number.isInteger(n) && n > 0)) throw new RangeArgError(`${what} must be a positive integer (≥ 1), got ${n}`);
}

/** Mean, sample std (n−1) and standard error of a list of numbers (Welford's update, stable). */
export function estimate(xs: ArrayLike<number>): Estimate {
  const n = xs.length;
  checkSamples(n, 'estimate: number of values');
  let mean = 0,
    m2 = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - mean;
    mean += d / (i + 1);
    m2 += d * (xs[i]! - mean);
  }
  const std = n > 1 ? Math.sqrt(m2 / (n - 1)) : 0;
  return { mean, std, stdError: std / Math.sqrt(n), n };
}

/**
 * E[φ(B)] for B ~ k(a), by n independent samples: the Monte Carlo integral of the
 * kernel's output distribution, with its standard error. φ defaults to the identity
 * (for numeric outputs).
 */
export function expectation<A, B>(k: Kernel<A, B>, a: A, n: number, rng: Rng, phi: (b: B) => number = (b) => b as unknown as number): Estimate {
  checkSamples(n);
  const xs = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    xs[i] = phi(k.sample(a, rng));
    if (!Number.isFinite(xs[i]!)) throw new RangeArgError(`expectation of ${k.name}: sample ${i + 1} is ${xs[i]}, expected a finite number`);
  }
  return estimate(xs);
}
