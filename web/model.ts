import { builtInData } from '../src/data/registry.js';
import type { Dataset } from '../src/data/dataset.js';
import { gridPoints } from '../src/draw/grid.js';
import type { Box } from '../src/draw/grid.js';
import { gaussianParams } from '../src/markov/kl.js';
import { withKlGradient } from '../src/experiments/markov/elbo.js';
import { lossFor, methodSpec } from '../src/experiments/markov/uncertainty.js';
// the weight of the KL term for Bayesian models: the CLI's `uncertainty --method bayes` default
import { CLASSIFICATION_DEFAULTS } from '../src/experiments/markov/uncertainty-report.js';
import { evalPredict, mcPredict } from '../src/markov/predict.js';
import type { Link } from '../src/nn/link.js';
import type { Loss } from '../src/nn/loss.js';
import { optimizer as makeOptimizer } from '../src/optim/by-name.js';
import { parseSpec } from '../src/catalogue/index.js';
import type { Para } from '../src/para/para.js';
import type { Tensor } from '../src/tensor/tensor.js';
import { argmax } from '../src/train/metrics.js';
import { fitToData, Trainer } from '../src/train/trainer.js';
import { checkTrainingMemory, checkTrainingWork } from '../src/train/cost.js';
import type { PlaygroundState } from './state.js';

/** Grid resolution of the pictures (N×N points). */
export const N = 64;
const GRID_POINTS = N * N;

export interface Setup {
  data: Dataset;
  loss: Loss;
  /** How outputs become probabilities: sigmoid (one logit), softmax (several), identity. */
  link: Link;
  /** Ready to train, from the state's seed: its model has been checked against the data. */
  trainer: Trainer;
}

/** The spec a user starts from when they turn on an uncertainty method: a small net with dropout or Bayesian layers. */
export function uncertaintySpec(method: 'mc-dropout' | 'bayes', data: string, seed: number): string {
  const ds = builtInData(data, seed);
  return methodSpec(method, ds.x.size / ds.x.batch, ds.y.size / ds.y.batch, { hidden: 16, p: 0.1 });
}

/**
 * What one run in the playground may cost (multiply-adds): its training and the ~150 pictures
 * over the N×N grid, about half a minute of a tab's CPU. Memory: the training limit of the CLI.
 */
export const PLAYGROUND_WORK = 2e11;

/** A state checked from shapes alone: the model fixed to the data and costed, nothing allocated. */
export interface Plan {
  data: Dataset;
  model: Para;
  loss: Loss;
  link: Link;
}

/**
 * Checks a state before anything is built, as the CLI does: the spec parses (its construction
 * costed by the spec grammar), the model fits the data (fitToData), and training — θ, its
 * gradient and the optimiser's state, a minibatch's activations — and the run's work, pictures
 * included, are within the limits. A link with 8192-wide layers once froze the tab for minutes
 * at 1.6 GB; now it is this error, at once. Cheap enough for the page's own thread.
 */
export function plan(state: PlaygroundState): Plan | { error: string } {
  try {
    const data = builtInData(state.data, state.seed);
    const { loss, link } = lossFor(data);
    const model = fitToData(parseSpec(state.model), data, loss);
    const N = data.x.batch;
    checkTrainingMemory(model, Math.min(state.batch, N), state.optimizer);
    checkTrainingWork(model, state.epochs * N, 150 * GRID_POINTS, `the playground: ${state.epochs} epochs of ${N} rows and their pictures`, PLAYGROUND_WORK);
    return { data, model, loss, link };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * Builds the data, loss and a Trainer for a state (with `seedOffset` added to the seed, for
 * ensembles), or returns the error message the CLI would print: a spec that does not parse,
 * shapes that do not compose or do not fit the data, a setup beyond the limits (plan). A
 * Bayesian state trains the ELBO: the optimiser adds the KL gradient to the prior
 * (src/experiments/markov/elbo.ts).
 */
export function setup(state: PlaygroundState, seedOffset = 0): Setup | { error: string } {
  const p = plan(state);
  if ('error' in p) return p;
  try {
    const { data, model: fixed, loss, link } = p;
    const seed = state.seed + seedOffset;
    const base = { loss, batch: state.batch, seed };
    const gauss = state.uncertainty === 'bayes' ? gaussianParams(fixed) : [];
    const trainer = gauss.length
      ? new Trainer(fixed, data, {
          ...base,
          optimizer: withKlGradient(makeOptimizer(state.optimizer, { lr: state.lr }), gauss, 1, CLASSIFICATION_DEFAULTS.klWeight! / data.x.batch),
        })
      : new Trainer(fixed, data, { ...base, lr: state.lr, optimizer: state.optimizer });
    return { data, loss, link, trainer };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** Probability of class 1 (one logit), or the predicted class scaled to [0,1] (several outputs). */
function toUnit(p: Tensor, i: number): number {
  const per = p.size / p.batch;
  return per === 1 ? p.data[i]! : argmax(p.data, i * per, per) / (per - 1);
}

/**
 * The classifier χ over an N×N grid of the box (evaluation mode), and, with `samples`, the
 * predictive standard deviation over that many stochastic passes (MC dropout, Bayesian
 * sampling; the largest over the outputs).
 */
export function gridOf(model: Para, theta: readonly Tensor[], box: Box, link: Link, samples = 0, seed = 0): { chi: Float32Array; std?: Float32Array } {
  const pts = gridPoints(box, N);
  const probs = evalPredict(model, theta, pts, link);
  const chi = Float32Array.from({ length: N * N }, (_, i) => toUnit(probs, i));
  if (!samples) return { chi };
  const mc = mcPredict(model, theta, pts, { samples, rng: seed + 7, link });
  const per = mc.std.size / mc.std.batch;
  const std = Float32Array.from({ length: N * N }, (_, i) => {
    let m = 0;
    for (let c = 0; c < per; c++) m = Math.max(m, mc.std.data[i * per + c]!);
    return m;
  });
  return { chi, std };
}
