import { RangeArgError } from '../errors.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { softplusDerivative, softplusValue } from '../nn/markov/bayes-dense.js';

/** Indices into θ of one Gaussian variational parameter: its mean μ and its ρ (σ = softplusValue(ρ)). */
export interface GaussianParam {
  readonly name: string;
  readonly mu: number;
  readonly rho: number;
}

/**
 * The Gaussian variational parameters of a model: every parameter named `…_mu` followed by
 * one named `…_rho` with the same prefix (as bayes_dense declares them; combinators keep the
 * names, prefixing `i.`), wherever they sit in the composite.
 */
export function gaussianParams(model: Para): GaussianParam[] {
  const names = model.params.map((p) => p.name);
  const out: GaussianParam[] = [];
  names.forEach((n, i) => {
    if (!n.endsWith('_mu')) return;
    const j = names.indexOf(`${n.slice(0, -3)}_rho`);
    if (j >= 0) out.push({ name: n.slice(0, -3), mu: i, rho: j });
  });
  return out;
}

export function checkPriorSigma(s: number): void {
  if (!(s > 0 && Number.isFinite(s))) throw new RangeArgError(`the prior scale priorSigma must be > 0 (prior N(0, s²)), got ${s}`);
}

/**
 * KL(q ‖ p) of the mean-field posterior q = Π N(μᵢ, σᵢ²), σ = softplusValue(ρ), to the prior
 * p = N(0, s²) (closed form, Blundell et al. 2015 §3 / Kingma & Welling 2014 App. B):
 * Σᵢ log(s/σᵢ) + (σᵢ² + μᵢ²)/(2s²) − ½.
 * When `grads` is given, adds `scale`·∂KL/∂μ = scale·μ/s² and
 * `scale`·∂KL/∂ρ = scale·(σ/s² − 1/σ)·logistic(ρ) into them.
 */
export function gaussianKl(theta: readonly Tensor[], params: readonly GaussianParam[], priorSigma: number, grads?: readonly Tensor[], scale = 1): number {
  checkPriorSigma(priorSigma);
  const s2 = priorSigma * priorSigma;
  const logS = Math.log(priorSigma);
  let kl = 0;
  for (const { mu, rho } of params) {
    const m = theta[mu]!.data,
      r = theta[rho]!.data;
    const gm = grads?.[mu]!.data,
      gr = grads?.[rho]!.data;
    for (let i = 0; i < m.length; i++) {
      const sigma = softplusValue(r[i]!);
      kl += logS - Math.log(sigma) + (sigma * sigma + m[i]! * m[i]!) / (2 * s2) - 0.5;
      if (gm && gr) {
        gm[i]! += (scale * m[i]!) / s2;
        const ds = sigma / s2 - 1 / sigma;
        gr[i]! += scale * ds * softplusDerivative(r[i]!);
      }
    }
  }
  return kl;
}
