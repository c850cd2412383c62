import type { Dataset } from '../data/dataset.js';
import { DeviceSupportError, formatCount, RangeArgError } from '../errors.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { backend } from '../tensor/registry.js';
import { DeviceTrainer } from './device-trainer.js';
import { Trainer } from './trainer.js';
import { checkTrainingWork } from './cost.js';
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
  | ({
      type: 'epoch';
      epochs: number;
      seconds: number;
      epochSeconds: number;
      testAccuracy?: number;
      testLoss?: number;
      validationLoss?: number;
      validationAccuracy?: number;
    } & EpochStats)
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

/** The most epoch records a run keeps: beyond twice this, every other one is dropped, so the kept ones stay spread over the run (each names its epoch) and the last epoch's is always there. */
export const MAX_HISTORY = 4096;

export interface TrainResult {
  model: Para;
  theta: Tensor[];
  /** One record per epoch, up to 2·MAX_HISTORY of them; a longer run keeps evenly thinned ones, the last epoch's among them. */
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

/** What the training run drives: a Trainer (synchronous) or a DeviceTrainer (each call a promise). */
interface EpochRunner {
  readonly model: Para;
  readonly theta: readonly Tensor[];
  readonly epoch: number;
  readonly stepsPerEpoch: number;
  runEpoch(onBatch?: (rows: number) => void, stepLimit?: number): EpochStats | Promise<EpochStats>;
  evaluate(ds: Dataset): Eval | Promise<Eval>;
}
type Eval = { loss: number; accuracy?: number };

/**
 * The training run, written once for both drivers: it yields each epoch's and each
 * evaluation's result-to-be and is handed back the result (train passes values straight back;
 * trainAsync awaits them, so a run on a device never blocks its thread).
 */
function* trainingRun(
  trainer: EpochRunner,
  data: Dataset,
  opts: TrainRunOptions,
  t0: number,
  hostTheta: () => unknown,
  afterEpoch: () => void,
): Generator<unknown, TrainResult, unknown> {
  const parameters = countParameters(trainer.theta);
  const { onEvent } = opts;
  const N = data.x.batch;
  // --steps N: as many epochs as N optimiser steps need, the last one cut short
  const epochs = opts.steps === undefined ? opts.epochs : Math.ceil(opts.steps / trainer.stepsPerEpoch);
  const stepLimit = opts.steps ?? Infinity;
  onEvent?.({ type: 'start', epochs, parameters, rows: N, startEpoch: trainer.epoch });
  const history: EpochRecord[] = [];
  let test: Eval | undefined;
  let validation: Eval | undefined;
  for (let e = trainer.epoch; e < epochs; e++) {
    const te = performance.now();
    const stats = (yield trainer.runEpoch(
      onEvent && ((rows) => onEvent({ type: 'batch', epoch: e + 1, epochs, rows, epochRows: N })),
      stepLimit,
    )) as EpochStats;
    const epochSeconds = (performance.now() - te) / 1000;
    const last = e === epochs - 1 || (opts.targetLoss !== undefined && stats.loss < opts.targetLoss);
    const evaluated = last || (e + 1) % (opts.evalEvery ?? 1) === 0;
    if (opts.test && evaluated) test = (yield trainer.evaluate(opts.test)) as Eval;
    const v = opts.validation && evaluated ? ((yield trainer.evaluate(opts.validation)) as Eval) : undefined;
    if (v) validation = v;
    const record: EpochRecord = { ...stats, seconds: epochSeconds, ...(v ? { validationLoss: v.loss, validationAccuracy: v.accuracy } : {}) };
    history.push(record);
    // a record per epoch, but not without bound (--epochs 1e15): beyond MAX_HISTORY, every other one goes
    if (history.length >= 2 * MAX_HISTORY) history.splice(0, history.length, ...history.filter((_, i) => i % 2 === 1));
    onEvent?.({
      type: 'epoch',
      epochs,
      seconds: (performance.now() - t0) / 1000,
      epochSeconds,
      ...stats,
      testAccuracy: test?.accuracy,
      testLoss: test?.loss,
      ...(v ? { validationLoss: v.loss, validationAccuracy: v.accuracy } : {}),
    });
    afterEpoch();
    if (last) break;
  }
  // resumed from a checkpoint that had already finished
  if (history.length === 0) {
    if (opts.test) test = (yield trainer.evaluate(opts.test)) as Eval;
    if (opts.validation) validation = (yield trainer.evaluate(opts.validation)) as Eval;
  }
  const final = (yield trainer.evaluate(data)) as Eval;
  const theta = (yield hostTheta()) as Tensor[];
  const seconds = (performance.now() - t0) / 1000;
  onEvent?.({ type: 'end', seconds });
  return {
    model: trainer.model,
    theta,
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

/**
 * Checks the epoch and step counts, and what the run would cost in all (checkTrainingWork:
 * epochs × rows through forward and pullback, and every evaluation) before anything is built.
 */
function checkEpochs(model: Para, data: Dataset, opts: TrainRunOptions): void {
  if (!(Number.isInteger(opts.epochs) && opts.epochs > 0)) throw new RangeArgError(`epochs must be a positive integer, got ${opts.epochs}`);
  if (opts.steps !== undefined && !(Number.isInteger(opts.steps) && opts.steps > 0))
    throw new RangeArgError(`steps must be a positive integer, got ${opts.steps}`);
  let fixed: Para;
  try {
    fixed = model.dom ? model : model.at(data.x.shape.slice(1));
  } catch {
    return; // the Trainer names the shape that does not fit
  }
  const N = data.x.batch,
    batch = Math.min(opts.batch ?? N, N);
  const rows = opts.steps !== undefined ? opts.steps * batch : opts.epochs * N;
  const epochs = opts.steps !== undefined ? Math.ceil(opts.steps / Math.max(1, Math.ceil(N / Math.max(1, batch)))) : opts.epochs;
  const evaluations = Math.ceil(epochs / (opts.evalEvery ?? 1)) * ((opts.test?.x.batch ?? 0) + (opts.validation?.x.batch ?? 0)) + N;
  const asked = opts.steps !== undefined ? `${formatCount(opts.steps)} steps of ${batch} rows` : `${formatCount(opts.epochs)} epochs of ${formatCount(N)} rows`;
  checkTrainingWork(fixed, rows, evaluations, `training: ${asked}`);
}

/** Trains `model` on `data` for `epochs` epochs (see Trainer; the loss defaults to the one that fits the data) and reports the result. */
export function train(model: Para, data: Dataset, opts: TrainRunOptions): TrainResult {
  checkEpochs(model, data, opts);
  const t0 = performance.now();
  const trainer = new Trainer(model, data, opts);
  opts.onStart?.(trainer);
  const run = trainingRun(
    trainer,
    data,
    opts,
    t0,
    () => trainer.theta,
    () => opts.afterEpoch?.(trainer),
  );
  let r = run.next();
  while (!r.done) r = run.next(r.value);
  return r.value;
}

/**
 * `train`, awaiting each epoch: on a backend with device memory (webgpu) the whole run is
 * resident on the device (DeviceTrainer) and only the statistics and, at the end, the
 * parameters come back; elsewhere it is `train` with the thread free between epochs.
 * On a device, onStart sees the host Trainer before its state goes to the device; afterEpoch
 * (writing checkpoints) needs host parameters every epoch and is refused there.
 */
export async function trainAsync(model: Para, data: Dataset, opts: TrainRunOptions): Promise<TrainResult> {
  checkEpochs(model, data, opts);
  const t0 = performance.now();
  const device = backend().device;
  const t = new Trainer(model, data, opts);
  let trainer: EpochRunner = t,
    hostTheta = (): unknown => t.theta,
    afterEpoch = (): void => opts.afterEpoch?.(t);
  if (device && opts.afterEpoch) throw new DeviceSupportError(`${backend().name} does not write checkpoints yet; train with --backend wasm for --checkpoint`);
  opts.onStart?.(t);
  if (device) {
    const dt = new DeviceTrainer(t, device);
    trainer = dt;
    hostTheta = () => dt.hostTheta();
    afterEpoch = () => {};
  }
  const run = trainingRun(trainer, data, opts, t0, hostTheta, afterEpoch);
  let r = run.next();
  while (!r.done) r = run.next(await r.value);
  return r.value;
}
