import { named, plain, pyNumber } from './torch-module.js';
import type { TorchRuleSet } from './torch-module.js';

/**
 * The stochastic layers of src/markov with their training/evaluation behaviour: dropout(p)
 * is nn.Dropout(p) (the same inverted scaling by 1/(1−p) in training, the identity in
 * evaluation); bayes_dense draws W = μ + softplus(ρ)·ε, b likewise, once per forward call
 * in training and uses the means in evaluation (Blundell et al. 2015, §3.2), as
 * src/nn/markov/bayes-dense.ts does. The draws come from torch's generator, not from
 * paralens's, so training-mode outputs agree in distribution, not in bits; `noise` is the
 * one place they are drawn, so a test can hand both the same ε.
 */
export const stochasticRules: TorchRuleSet = {
  rules: {
    dropout: ({ m }) => plain(`nn.Dropout(${pyNumber(m.args[0] as number)})`),
    bayes_dense: ({ m }) => named(m, `BayesDense(${m.args[0]}, ${m.args[1]})`, ['BayesDense']),
  },
};
