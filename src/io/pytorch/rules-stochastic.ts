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
  helpers: {
    BayesDense: `class BayesDense(nn.Module):
    """bayes_dense(in,out): Gaussian weights N(μ, softplus(ρ)²), sampled by reparameterisation in training; the means in evaluation."""
    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight_mu = nn.Parameter(torch.zeros(n_out, n_in))
        self.weight_rho = nn.Parameter(torch.zeros(n_out, n_in))
        self.bias_mu = nn.Parameter(torch.zeros(n_out))
        self.bias_rho = nn.Parameter(torch.zeros(n_out))

    def noise(self, shape):
        return torch.randn(shape, dtype=self.weight_mu.dtype, device=self.weight_mu.device)

    def forward(self, x):
        w, b = self.weight_mu, self.bias_mu
        if self.training:
            w = w + F.softplus(self.weight_rho) * self.noise(w.shape)
            b = b + F.softplus(self.bias_rho) * self.noise(b.shape)
        return F.linear(x, w, b)`,
  },
  rules: {
    dropout: ({ m }) => plain(`nn.Dropout(${pyNumber(m.args[0] as number)})`),
    bayes_dense: ({ m }) => named(m, `BayesDense(${m.args[0]}, ${m.args[1]})`, ['BayesDense']),
  },
};
