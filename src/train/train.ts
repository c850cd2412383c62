import type { Dataset } from '../data/dataset.js';
import { RangeArgError } from '../errors.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { Trainer } from './trainer.js';
import type { EpochStats, TrainOptions } from './trainer.js';

/**
 * What `train` reports as it goes: the CLI draws its progress line from it, the playground a
 * live plot. `batch` comes after every optimiser step (rows: done in the current epoch,
 * 1-based `epoch`); `epoch` after each epoch, with its training time alone (`epochSeconds`)
 * and the time since the start (`seconds`); the validation metrics when they were evaluated
 * after this epoch, the test metrics last evaluated.
 */
export type TrainEvent =
  | { type: 'start'; epochs: number; parameters: number; rows: number; startEpoch: number }
  | { type: 'batch'; epoch: number; epochs: number; rows: number; epochRows: number }
  | ({ type: 'epoch'; epochs: number; seconds: number; epochSeconds: number; testAccuracy?: number; testLoss?: number; validationLoss?: number; validationAccuracy?: number } & EpochStats)
  | { type: 'end'; seconds: number };

/** One epoch of a run: its training loss and accuracy, its training time, and the validation metrics when they were evaluated after it. */
export interface EpochRecord extends EpochStats {
  seconds: number;
  validationLoss?: number;
  validationAccuracy?: number;
}

export interface TrainRunOptions extends TrainOptions {
  epochs: number;
  /** Stop after this many optimiser steps instead (epochs is then ⌈steps / steps per epoch⌉, the last one partial). */
  steps?: number;
  test?: Dataset;
  /** Held out from training and evaluated like `test` (the CLI's --val-fraction): its metrics are in each evaluated epoch's event and record. */
  validation?: Dataset;
  /** Evaluate on `test` and `validation` every this many epochs, and after the last (default: every epoch). */
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
  history: EpochRecord[];
  finalLoss: number;
  accuracy?: number;
  testAccuracy?: number;
  testLoss?: number;
  validationLoss?: number;
  validationAccuracy?: number;
  epochs: number;
  seconds: number;
  parameters: number;
}

/** Number of scalar parameters. */
export function countParameters(theta: readonly Tensor[]): number {
  return theta.reduce((n, t) => n + t.size, 0);
}

/** Trains `model` on `data` for `epochs` epochs (see Trainer; the loss defaults to the one that fits the data) and reports the result. */
export function train(model: Para, data: Dataset, opts: TrainRunOptions): TrainResult {
  if (!(Number.isInteger(opts.epochs) && opts.epochs > 0)) throw new RangeArgError(`epochs must be a positive integer, got ${opts.epochs}`);
  if (opts.steps !== undefined && !(Number.isInteger(opts.steps) && opts.steps > 0)) throw new RangeArgError(`steps must be a positive integer, got ${opts.steps}`);
  const t0 = performance.now();
  const trainer = new Trainer(model, data, opts);
  const epochs = opts.steps === undefined ? opts.epochs : Math.ceil(opts.steps / trainer.stepsPerEpoch);
  const stepLimit = opts.steps ?? Infinity;
  opts.onStart?.(trainer);
  const parameters = countParameters(trainer.theta);
  const { onEvent } = opts;
  const N = data.x.batch;
  onEvent?.({ type: 'start', epochs, parameters, rows: N, startEpoch: trainer.epoch });
  const history: EpochRecord[] = [];
  let test: { loss: number; accuracy?: number } | undefined;
  let validation: { loss: number; accuracy?: number } | undefined;
  for (let e = trainer.epoch; e < epochs; e++) {
    const te = performance.now();
    const stats = trainer.runEpoch(onEvent && ((rows) => onEvent({ type: 'batch', epoch: e + 1, epochs, rows, epochRows: N })), stepLimit);
    const epochSeconds = (performance.now() - te) / 1000;
    const last = e === epochs - 1 || (opts.targetLoss !== undefined && stats.loss < opts.targetLoss);
    const evaluated = last || (e + 1) % (opts.evalEvery ?? 1) === 0;
    if (opts.test && evaluated) test = trainer.evaluate(opts.test);
    const v = opts.validation && evaluated ? trainer.evaluate(opts.validation) : undefined;
    if (v) validation = v;
    const record: EpochRecord = { ...stats, seconds: epochSeconds, ...(v ? { validationLoss: v.loss, validationAccuracy: v.accuracy } : {}) };
    history.push(record);
    onEvent?.({ type: 'epoch', epochs, seconds: (performance.now() - t0) / 1000, epochSeconds, ...stats, testAccuracy: test?.accuracy, testLoss: test?.loss, ...(v ? { validationLoss: v.loss, validationAccuracy: v.accuracy } : {}) });
    opts.afterEpoch?.(trainer);
    if (last) break;
  }
  // resumed from a checkpoint that had already finished
  if (history.length === 0) {
    if (opts.test) test = trainer.evaluate(opts.test);
    if (opts.validation) validation = trainer.evaluate(opts.validation);
  }
  const final = trainer.evaluate(data);
  const seconds = (performance.now() - t0) / 1000;
  onEvent?.({ type: 'end', seconds });
  return {
    model: trainer.model,
    theta: trainer.theta,
    history,
    finalLoss: final.loss,
    accuracy: final.accuracy,
    testAccuracy: test?.accuracy,
    testLoss: test?.loss,
    validationLoss: validation?.loss,
    validationAccuracy: validation?.accuracy,
    epochs: trainer.epoch,
    seconds,
    parameters,
  };
}
