import type { Dataset } from '../../data/dataset.js';
import { quote, RangeArgError } from '../../errors.js';
import { lossForData } from '../../nn/loss.js';
import type { Loss } from '../../nn/loss.js';
import { parseSpec } from '../../catalogue/index.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { Trainer } from '../../train/trainer.js';
import { checkDropProbability } from '../../nn/markov/dropout.js';
import { trainElbo } from './elbo.js';
import { checkSamples } from '../../markov/expectation.js';
import { evalPredict, mcPredict } from '../../markov/predict.js';
import type { Link } from '../../nn/link.js';
import type { McPrediction } from '../../markov/predict.js';

/** How a model expresses uncertainty: not at all, by MC dropout (Gal & Ghahramani 2016), or by Bayes by backprop. */
export type UncertaintyMethod = 'deterministic' | 'mc-dropout' | 'bayes';
export const UNCERTAINTY_METHODS: readonly UncertaintyMethod[] = ['deterministic', 'mc-dropout', 'bayes'];

export interface UncertaintyFitOptions {
  /** Hidden width (two hidden ReLU layers). Default 32. */
  hidden?: number;
  epochs?: number;
  lr?: number;
  batch?: number;
  seed?: number;
  /** Drop probability of the dropout layers (mc-dropout). Default 0.1. */
  p?: number;
  /** Prior scale of the Bayesian layers. Default 1. */
  priorSigma?: number;
  /** Weight of the KL term in the ELBO (1 = Bayes by backprop; < 1 a tempered posterior). Default 1. */
  klWeight?: number;
  /** Initial posterior σ of the Bayesian layers. Default 0.05. */
  sigma0?: number;
  /** Regression: the Gaussian likelihood's noise σ in the ELBO. Default 0.1. */
  noiseSigma?: number;
  /** Told after each training epoch (for a progress line). */
  onEpoch?: (epoch: number, epochs: number) => void;
}

/** A fitted model: the spec it was built from, its parameters, and its predictive distribution. */
export interface FittedMethod {
  readonly method: UncertaintyMethod;
  readonly model: Para;
  readonly theta: Tensor[];
  readonly link: Link;
  /** Predictive mean and std: n MC samples (mc-dropout, bayes) or one evaluation pass with std 0 (deterministic). */
  predict(x: Tensor, samples: number, seed: number): McPrediction;
}

/** The architecture for a method: d → h → h → k with ReLU, dropout after each hidden layer or Bayesian layers. */
export function methodSpec(method: UncertaintyMethod, d: number, k: number, opts: UncertaintyFitOptions = {}): string {
  const h = opts.hidden ?? 32;
  if (method === 'bayes') {
    const s = opts.sigma0 !== undefined ? `,${opts.sigma0}` : '';
    return `bayes_dense(${d},${h}${s}) >> relu >> bayes_dense(${h},${h}${s}) >> relu >> bayes_dense(${h},${k}${s})`;
  }
  const drop = method === 'mc-dropout' ? ` >> dropout(${opts.p ?? 0.1})` : '';
  return `dense(${d},${h}) >> relu${drop} >> dense(${h},${h}) >> relu${drop} >> dense(${h},${k})`;
}

/** The data loss and its output link for a data set: bce/sigmoid for one output with labels, softmax CE for several, mse for regression. */
export function lossFor(data: Dataset): { loss: Loss; link: Link } {
  const loss = lossForData(data);
  return { loss, link: loss.link };
}

/**
 * Trains `method`'s network on `data`: deterministic and mc-dropout with the core Trainer
 * (Adam, data loss only), bayes with `trainElbo` (Bayes by backprop).
 */
export function fitMethod(method: UncertaintyMethod, data: Dataset, opts: UncertaintyFitOptions = {}): FittedMethod {
  if (!UNCERTAINTY_METHODS.includes(method)) throw new RangeArgError(`method must be one of ${UNCERTAINTY_METHODS.join(', ')}, got ${quote(method)}`);
  if (opts.p !== undefined) checkDropProbability(opts.p, 'p');
  const d = data.x.size / data.x.batch,
    k = data.y.size / data.y.batch;
  const { loss, link } = lossFor(data);
  const model = parseSpec(methodSpec(method, d, k, opts));
  const epochs = opts.epochs ?? 300,
    lr = opts.lr ?? 0.01,
    seed = opts.seed ?? 0,
    batch = opts.batch ?? 32;
  let theta: Tensor[];
  if (method === 'bayes') {
    const onEpoch = opts.onEpoch && ((e: { epoch: number }) => opts.onEpoch!(e.epoch, epochs));
    theta = trainElbo(model, data, {
      loss,
      epochs,
      lr,
      batch,
      seed,
      priorSigma: opts.priorSigma,
      klWeight: opts.klWeight,
      noiseSigma: opts.noiseSigma ?? 0.1,
      onEpoch,
    }).theta;
  } else {
    const t = new Trainer(model, data, { loss, lr, batch, seed, optimizer: 'adam' });
    for (let e = 0; e < epochs; e++) {
      t.runEpoch();
      opts.onEpoch?.(e + 1, epochs);
    }
    theta = t.theta;
  }
  return {
    method,
    model,
    theta,
    link,
    predict(x, samples, s) {
      checkSamples(samples);
      if (method === 'deterministic') {
        const mean = evalPredict(model, theta, x, link);
        return { mean, std: Tensor.zeros(mean.shape, mean.dtype), samples: 1 };
      }
      return mcPredict(model, theta, x, { samples, rng: s, link });
    },
  };
}

/** Mean over rows of the mean over outputs of the predictive std (one number per point set). */
export function meanStd(p: McPrediction): number {
  let s = 0;
  for (let i = 0; i < p.std.size; i++) s += p.std.data[i]!;
  return s / p.std.size;
}
