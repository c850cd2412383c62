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
import { trainedPart } from '../src/train/model-ends.js';
import { readTable } from '../src/data/table.js';
import { encodeTable, tablePreprocessing } from '../src/data/tabular.js';
import { applyPreprocessing, fitStatistics } from '../src/data/preprocessing.js';
import { importOnnx } from '../src/io/onnx/import.js';
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
  /** The whole model, as drawn (the trainer's may stop before a softmax head: it trains the logits). */
  model: Para;
}

/** The spec a user starts from when they turn on an uncertainty method: a small net with dropout or Bayesian layers. */
export function uncertaintySpec(method: 'mc-dropout' | 'bayes', data: string, seed: number): string {
  const ds = builtInData(data, seed);
  return methodSpec(method, ds.x.size / ds.x.batch, ds.y.size / ds.y.batch, { hidden: 16, p: 0.1 });
}

/**
 * What the page was given as files rather than in its link: an uploaded CSV's rows (state.data
 * 'uploaded') and an imported model's weights (for state.model = its spec).
 */
export interface Given {
  data?: Dataset;
  imported?: Imported;
}

/** An ONNX model read for the playground: its spec (the model field's text), its weights, and import's notes. */
export interface Imported {
  readonly name: string;
  readonly spec: string;
  readonly theta: readonly Tensor[];
  readonly notes: readonly string[];
}

/** Reads an .onnx file's bytes (importOnnx: every operator a lens, layers recovered where they match). */
export function importModel(name: string, bytes: Uint8Array): Imported {
  const r = importOnnx(bytes);
  return {
    name,
    spec: String(r.model),
    theta: r.theta,
    notes: [...r.notes, ...(r.outputLink ? [`it ends in ${r.outputLink}: trained through the logits before it`] : [])],
  };
}

/**
 * An uploaded CSV as the CLI reads it (header row, the last column the target; numeric columns
 * standardised with the file's mean and std, text columns one-hot encoded).
 */
export function uploadedData(name: string, text: string): Dataset {
  const table = readTable(text, { name });
  const p = tablePreprocessing(table);
  return applyPreprocessing(fitStatistics(p, encodeTable(table, p)), encodeTable(table, p));
}

/** A small net for a data set's width: its inputs to one logit or one output per class. */
export function modelForData(d: Dataset): string {
  const inputs = d.x.size / d.x.batch,
    outputs = d.y.size / d.y.batch;
  return `dense(${inputs},16) >> tanh >> dense(16,${outputs})`;
}

/** The data a state trains on: the uploaded rows, or a built-in set. */
export function dataOf(state: PlaygroundState, given: Given = {}): Dataset {
  if (state.data !== 'uploaded') return builtInData(state.data, state.seed);
  if (!given.data) throw new Error('no CSV uploaded yet: choose a file under "Upload a CSV"');
  return given.data;
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
export function plan(state: PlaygroundState, given: Given = {}): Plan | { error: string } {
  try {
    const data = dataOf(state, given);
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
export function setup(state: PlaygroundState, seedOffset = 0, given: Given = {}): Setup | { error: string } {
  const p = plan(state, given);
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
      : plainTrainer(
          fixed,
          data,
          { ...base, lr: state.lr, optimizer: state.optimizer },
          state.model === given.imported?.spec ? given.imported.theta : undefined,
        );
    return { data, loss, link, trainer, model: fixed };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * A Trainer from the imported weights (copies) when the model is the imported one; a model
 * ending in softmax trains through the logits before it, as the CLI's train does.
 */
function plainTrainer(model: Para, data: Dataset, opts: ConstructorParameters<typeof Trainer>[2], theta: readonly Tensor[] | undefined): Trainer {
  const { part } = trainedPart(model, opts!.loss!.name, undefined);
  return new Trainer(part, data, { ...opts, ...(theta ? { theta: theta.map((t) => t.clone()) } : {}) });
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
