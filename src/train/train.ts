import type { Dataset } from '../data/dataset.js';
import { RangeArgError } from '../errors.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { Trainer } from './trainer.js';
import type { EpochStats, TrainOptions } from './trainer.js';

/** What `train` reports as it goes: the CLI draws a progress bar from it, the playground a live plot. */
export type TrainEvent =
  | { type: 'start'; epochs: number; parameters: number }
  | ({ type: 'epoch'; epochs: number; seconds: number; testAccuracy?: number; testLoss?: number } & EpochStats)
  | { type: 'end'; seconds: number };

export interface TrainRunOptions extends TrainOptions {
  epochs: number;
  /** Stop after this many optimiser steps instead (epochs is then ⌈steps / steps per epoch⌉, the last one partial). */
  steps?: number;
  test?: Dataset;
  /** Evaluate on `test` every this many epochs (default: every epoch when a test set is given). */
  evalEvery?: number;
  onEvent?: (e: TrainEvent) => void;
  /** Stop early once the epoch loss falls below this. */
  targetLoss?: number;
  /** Called once the Trainer is built, before the first epoch: a checkpoint restores its state here (training then resumes at `trainer.epoch`). */
  onStart?: (trainer: Trainer) => void;
  /** Called after each completed epoch (and its event): checkpoints are written here. */
  afterEpoch?: (trainer: Trainer) => void;
}

export interface TrainResult {
  model: Para;
  theta: Tensor[];
  history: EpochStats[];
  finalLoss: number;
  accuracy?: number;
  testAccuracy?: number;
  testLoss?: number;
  epochs: number;
  seconds: number;
  parameters: number;
}

/** Number of scalar parameters. */
export function countParameters(theta: readonly Tensor[]): number {
  return theta.reduce((n, t) => n + t.size, 0);
}

/** Trains `model` on `data` for `epochs` epochs (see Trainer) and reports the result. */
export function train(model: Para, data: Dataset, opts: TrainRunOptions): TrainResult {
  if (!(Number.isInteger(opts.epochs) && opts.epochs > 0)) throw new RangeArgError(`epochs must be a positive integer, got ${opts.epochs}`);
  if (opts.steps !== undefined && !(Number.isInteger(opts.steps) && opts.steps > 0)) throw new RangeArgError(`steps must be a positive integer, got ${opts.steps}`);
  const t0 = performance.now();
  const trainer = new Trainer(model, data, opts);
  const epochs = opts.steps === undefined ? opts.epochs : Math.ceil(opts.steps / trainer.stepsPerEpoch);
  const stepLimit = opts.steps ?? Infinity;
  opts.onStart?.(trainer);
  const parameters = countParameters(trainer.theta);
  opts.onEvent?.({ type: 'start', epochs, parameters });
  const history: EpochStats[] = [];
  let test: { loss: number; accuracy?: number } | undefined;
  for (let e = trainer.epoch; e < epochs; e++) {
    const stats = trainer.runEpoch(stepLimit);
    history.push(stats);
    const last = e === epochs - 1 || (opts.targetLoss !== undefined && stats.loss < opts.targetLoss);
    if (opts.test && (last || (e + 1) % (opts.evalEvery ?? 1) === 0)) test = trainer.evaluate(opts.test);
    opts.onEvent?.({ type: 'epoch', epochs, seconds: (performance.now() - t0) / 1000, ...stats, testAccuracy: test?.accuracy, testLoss: test?.loss });
    opts.afterEpoch?.(trainer);
    if (last) break;
  }
  if (opts.test && history.length === 0) test = trainer.evaluate(opts.test); // resumed from a checkpoint that had already finished
  const final = trainer.evaluate(data);
  const seconds = (performance.now() - t0) / 1000;
  opts.onEvent?.({ type: 'end', seconds });
  return {
    model: trainer.model,
    theta: trainer.theta,
    history,
    finalLoss: final.loss,
    accuracy: final.accuracy,
    testAccuracy: test?.accuracy,
    testLoss: test?.loss,
    epochs: trainer.epoch,
    seconds,
    parameters,
  };
}
