import { RangeArgError } from '../errors.js';
import { checkWindow, sampleWindows, vocabSize } from '../data/text.js';
import type { TextCorpus } from '../data/text.js';
import { tokenCrossEntropy } from '../nn/loss.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import { countParameters } from './train.js';
import { Trainer } from './trainer.js';
import type { TrainOptions } from './trainer.js';
import { atContext, bitsPerChar } from './text-metrics.js';

export interface LanguageModelOptions extends Omit<TrainOptions, 'loss' | 'batch' | 'shuffle'> {
  /** Characters per training window (T). */
  context: number;
  /** Windows per optimiser step (B). */
  batch: number;
  steps: number;
  /** Called after each step with the minibatch loss in bits per character. */
  onStep?: (step: number, steps: number, bits: number) => void;
}

export interface LanguageModelResult {
  /** The model fixed to windows of `context` characters. */
  model: Para;
  theta: Tensor[];
  steps: number;
  /** Mean training cross-entropy (bits per character) over the last tenth of the steps. */
  bitsPerChar: number;
  /** bitsPerChar on the validation text at the training context (text-metrics.ts). */
  valBitsPerChar: number;
  /** Training characters predicted per second of optimiser steps (B·T·steps over their time; evaluation not counted). */
  tokensPerSecond: number;
  seconds: number;
  parameters: number;
}

/**
 * Trains a next-character model: each step draws `batch` windows of `context` characters at
 * seeded random starts in the training text and takes one optimiser step on the mean
 * token cross-entropy of predicting every next character (Trainer.stepOn).
 */
export function trainLanguageModel(model: Para, corpus: TextCorpus, opts: LanguageModelOptions): LanguageModelResult {
  const { context: T, batch: B, steps } = opts;
  for (const [name, v] of [['context', T], ['batch', B], ['steps', steps]] as const) {
    if (!(Number.isInteger(v) && v > 0)) throw new RangeArgError(`${name} must be a positive integer, got ${v}`);
  }
  checkWindow(`${corpus.name} (training text)`, corpus.train, T);
  checkWindow(`${corpus.name} (validation text)`, corpus.val, T);
  const V = vocabSize(corpus.vocabulary);
  const m = atContext(model, T, V);
  // the trainer sees B windows of T ids and their next-character targets: this batch of
  // zeros only gives it their shapes; every step fills its own
  const shapes = { name: corpus.name, x: Tensor.zeros([B, T]), y: Tensor.zeros([B, T]) };
  const trainer = new Trainer(m, shapes, { ...opts, loss: tokenCrossEntropy, batch: B });
  const windows = trainer.rng.split();
  const tail = Math.max(1, Math.ceil(steps / 10));
  let tailSum = 0;
  const t0 = performance.now();
  for (let s = 0; s < steps; s++) {
    const { loss } = trainer.stepOn(B, (xb, yb) => sampleWindows(corpus.train, T, windows, xb.data, yb.data));
    const bits = loss / Math.LN2;
    if (s >= steps - tail) tailSum += bits;
    opts.onStep?.(s + 1, steps, bits);
  }
  const seconds = (performance.now() - t0) / 1000;
  return {
    model: trainer.model,
    theta: trainer.theta,
    steps,
    bitsPerChar: tailSum / tail,
    valBitsPerChar: bitsPerChar(trainer.model, trainer.theta, corpus.val, T, V),
    tokensPerSecond: (B * T * steps) / seconds,
    seconds,
    parameters: countParameters(trainer.theta),
  };
}
