import { Tensor } from '../../tensor/tensor.js';
import { parseSpec } from '../../catalogue/index.js';
import type { Para } from '../../para/para.js';
import { softplusInverse } from '../../nn/markov/bayes-dense.js';
import { mcPredict } from '../../markov/predict.js';

/**
 * The seed's stochastic-morphism demo (seed 000, §Markov): a Bayesian layer bayes_dense(2,1)
 * followed by a sigmoid, weights W ~ N(μ, σ²) with fixed μ and σ, evaluated on one input by
 * Monte Carlo (n forward passes, a fresh weight draw each). The seed reports mean 0.7169 and
 * std 0.0660. Here μ_W = (0.6, 0.5), μ_b = 0.1, σ = 0.22 and x = (1, 0.5): the pre-activation
 * is N(0.95, 0.33²) and its sigmoid has mean ≈ 0.71 and std ≈ 0.066.
 */
export function bayesDemo(samples = 1000, seed = 0): { model: Para; x: number[]; mean: number; std: number; stdError: number } {
  const model = parseSpec('bayes_dense(2,1) >> sigmoid');
  const rho = softplusInverse(0.22);
  const theta = [Tensor.of([0.6, 0.5], [1, 2]), Tensor.of([rho, rho], [1, 2]), Tensor.of([0.1], [1]), Tensor.of([rho], [1])];
  const x = [1, 0.5];
  const p = mcPredict(model, theta, Tensor.of(x, [1, 2]), { samples, rng: seed });
  const std = p.std.data[0]!;
  return { model, x, mean: p.mean.data[0]!, std, stdError: std / Math.sqrt(samples) };
}
