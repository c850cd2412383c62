import type { Dataset } from '../../data/dataset.js';
import { RangeArgError } from '../../errors.js';
import type { Loss } from '../../nn/loss.js';
import { optimizer as makeOptimizer } from '../../optim/by-name.js';
import type { Optimizer } from '../../optim/optimizer.js';
import type { Para } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import { Trainer } from '../../train/trainer.js';
import { checkPriorSigma, gaussianKl, gaussianParams } from '../../markov/kl.js';
import type { GaussianParam } from '../../markov/kl.js';

export interface ElboOptions {
  /** The data term: the negative log-likelihood per datum (bce / softmax-cross-entropy on logits; mse is scaled, see `noiseSigma`). */
  loss: Loss;
  epochs: number;
  lr?: number;
  /** An optimiser or its name (default adam). */
  optimizer?: Optimizer | string;
  batch?: number;
  seed?: number;
  /** Prior N(0, s²) on every Gaussian parameter (default 1). */
  priorSigma?: number;
  /** Multiplies the KL term (default 1: the ELBO; < 1 tempers the prior). */
  klWeight?: number;
  /** For mse: the Gaussian likelihood's noise σ, NLL = mse/(2σ²) (+ const). Default 1. */
  noiseSigma?: number;
  theta?: Tensor[];
  onEpoch?: (e: ElboEpoch) => void;
}

export interface ElboEpoch {
  epoch: number;
  /** Mean data term per datum over the epoch. */
  nll: number;
  /** KL(q ‖ prior) at the end of the epoch (whole network, not per datum). */
  kl: number;
  /** The negative ELBO per datum: nll + klWeight·KL/N. */
  loss: number;
}

export interface ElboResult {
  model: Para;
  theta: Tensor[];
  history: ElboEpoch[];
}

/**
 * The prior's share of the update: an optimiser that first adds scale·∇KL(q ‖ N(0, s²)) to
 * the data gradient of every Gaussian parameter, then applies `inner`'s update. Composing it
 * with the core Trainer's data-loss steps gives Bayes by backprop.
 */
export function withKlGradient(inner: Optimizer, params: readonly GaussianParam[], priorSigma: number, scale: number): Optimizer {
  checkPriorSigma(priorSigma);
  return {
    name: inner.name,
    get t() {
      return inner.t;
    },
    step(theta, grads) {
      gaussianKl(theta, params, priorSigma, grads, scale);
      inner.step(theta, grads);
    },
    lr: () => inner.lr(),
    state: () => inner.state(),
    loadState: (s) => inner.loadState(s),
    checkState: (s, theta) => inner.checkState(s, theta),
  };
}

/** A loss scaled by a constant (value and gradient): the Gaussian NLL mse/(2σ²) from mse. */
function scaledLoss(loss: Loss, c: number): Loss {
  if (c === 1) return loss;
  return {
    name: loss.name,
    link: loss.link,
    apply(yhat, target, ctx) {
      const l = loss.apply(yhat, target, ctx);
      return { value: c * l.value, pullback: (scale = 1) => l.pullback(c * scale) };
    },
  };
}

/**
 * Bayes by backprop (Blundell et al. 2015, eq. 2 and §3.4): minimises the negative ELBO
 *   −ELBO/N = E_q[−log p(D|W)]/N + KL(q(W) ‖ p(W))/N
 * by minibatch gradient steps. Each step samples the weights once (the model's `bayes_dense`
 * layers draw ε from the ctx rng in training mode), pulls the data-loss gradient back through
 * the model's lens (it reaches μ and ρ by reparameterisation) — this is the core Trainer's
 * step — and the optimiser `withKlGradient` adds the closed-form KL gradient with weight
 * klWeight/N before its update. The KL is not in the layers' pullbacks.
 */
export function trainElbo(model: Para, data: Dataset, opts: ElboOptions): ElboResult {
  if (!(Number.isInteger(opts.epochs) && opts.epochs > 0)) throw new RangeArgError(`epochs must be a positive integer, got ${opts.epochs}`);
  const priorSigma = opts.priorSigma ?? 1;
  checkPriorSigma(priorSigma);
  const noise = opts.noiseSigma ?? 1;
  if (!(noise > 0)) throw new RangeArgError(`noiseSigma must be > 0, got ${noise}`);
  const klWeight = opts.klWeight ?? 1;
  if (!(klWeight >= 0 && Number.isFinite(klWeight))) throw new RangeArgError(`klWeight must be ≥ 0, got ${klWeight}`);
  const N = data.x.batch;
  const m = model.dom ? model : model.at(data.x.shape.slice(1));
  const gauss = gaussianParams(m);
  const inner = typeof opts.optimizer === 'object' ? opts.optimizer : makeOptimizer(opts.optimizer ?? 'adam', { lr: opts.lr ?? 0.01 });
  const trainer = new Trainer(m, data, {
    // under the identity link the data loss is mse, the Gaussian likelihood up to 1/(2σ²)
    loss: scaledLoss(opts.loss, opts.loss.link === 'identity' ? 1 / (2 * noise * noise) : 1),
    optimizer: withKlGradient(inner, gauss, priorSigma, klWeight / Math.max(1, N)),
    batch: opts.batch,
    seed: opts.seed,
    theta: opts.theta,
  });
  const history: ElboEpoch[] = [];
  for (let epoch = 1; epoch <= opts.epochs; epoch++) {
    const nll = trainer.runEpoch().loss;
    const kl = gaussianKl(trainer.theta, gauss, priorSigma);
    const e = { epoch, nll, kl, loss: nll + (klWeight * kl) / N };
    history.push(e);
    opts.onEpoch?.(e);
  }
  return { model: trainer.model, theta: trainer.theta, history };
}
