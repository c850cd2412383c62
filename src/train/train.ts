import type { Dataset } from '../data/dataset.js';
import { DeviceSupportError, RangeArgError } from '../errors.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { backend } from '../tensor/registry.js';
import { DeviceTrainer } from './device-trainer.js';
import { Trainer } from './trainer.js';
import type { EpochStats, TrainOptions } from './trainer.js';

/** What `train` reports as it goes: the CLI draws a progress bar from it, the playground a live plot. */
export type TrainEvent =
  | { type: 'start'; epochs: number; parameters: number }
  | ({ type: 'epoch'; epochs: number; seconds: number; testAccuracy?: number; testLoss?: number } & EpochStats)
  | { type: 'end'; seconds: number };

export interface TrainRunOptions extends TrainOptions {
  epochs: number;
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

/** What the training run drives: a Trainer (synchronous) or a DeviceTrainer (each call a promise). */
interface EpochRunner {
  readonly model: Para;
  readonly theta: readonly Tensor[];
  readonly epoch: number;
  runEpoch(): EpochStats | Promise<EpochStats>;
  evaluate(ds: Dataset): { loss: number; accuracy?: number } | Promise<{ loss: number; accuracy?: number }>;
}

/**
 * The training run, written once for both drivers: it yields each epoch's and each
 * evaluation's result-to-be, and is handed back the result (train passes values straight
 * back; trainAsync awaits them, so a device run never blocks its thread).
 */
function* trainingRun(trainer: EpochRunner, data: Dataset, opts: TrainRunOptions, t0: number, hostTheta: () => unknown, afterEpoch: () => void): Generator<unknown, TrainResult, unknown> {
  const parameters = countParameters(trainer.theta);
  opts.onEvent?.({ type: 'start', epochs: opts.epochs, parameters });
  const history: EpochStats[] = [];
  type Eval = { loss: number; accuracy?: number };
  let test: Eval | undefined;
  for (let e = trainer.epoch; e < opts.epochs; e++) {
    const stats = (yield trainer.runEpoch()) as EpochStats;
    history.push(stats);
    const last = e === opts.epochs - 1 || (opts.targetLoss !== undefined && stats.loss < opts.targetLoss);
    if (opts.test && (last || (e + 1) % (opts.evalEvery ?? 1) === 0)) test = (yield trainer.evaluate(opts.test)) as Eval;
    opts.onEvent?.({ type: 'epoch', epochs: opts.epochs, seconds: (performance.now() - t0) / 1000, ...stats, testAccuracy: test?.accuracy, testLoss: test?.loss });
    afterEpoch();
    if (last) break;
  }
  if (opts.test && history.length === 0) test = (yield trainer.evaluate(opts.test)) as Eval; // resumed from a checkpoint that had already finished
  const final = (yield trainer.evaluate(data)) as Eval;
  const theta = (yield hostTheta()) as Tensor[];
  const seconds = (performance.now() - t0) / 1000;
  opts.onEvent?.({ type: 'end', seconds });
  return {
    model: trainer.model,
    theta,
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

function checkEpochs(opts: TrainRunOptions): void {
  if (!(Number.isInteger(opts.epochs) && opts.epochs > 0)) throw new RangeArgError(`epochs must be a positive integer, got ${opts.epochs}`);
}

/** Trains `model` on `data` for `epochs` epochs (see Trainer) and reports the result. */
export function train(model: Para, data: Dataset, opts: TrainRunOptions): TrainResult {
  checkEpochs(opts);
  const t0 = performance.now();
  const trainer = new Trainer(model, data, opts);
  opts.onStart?.(trainer);
  const run = trainingRun(trainer, data, opts, t0, () => trainer.theta, () => opts.afterEpoch?.(trainer));
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
  checkEpochs(opts);
  const t0 = performance.now();
  const device = backend().device;
  let trainer: EpochRunner, hostTheta: () => unknown, afterEpoch = (): void => {};
  if (device) {
    if (opts.afterEpoch) throw new DeviceSupportError(`${backend().name} does not write checkpoints yet; train with --backend wasm for --checkpoint`);
    const t = new Trainer(model, data, opts);
    opts.onStart?.(t);
    const dt = new DeviceTrainer(t, device);
    trainer = dt;
    hostTheta = () => dt.hostTheta();
  } else {
    const t = new Trainer(model, data, opts);
    opts.onStart?.(t);
    trainer = t;
    hostTheta = () => t.theta;
    afterEpoch = () => opts.afterEpoch?.(t);
  }
  const run = trainingRun(trainer, data, opts, t0, hostTheta, afterEpoch);
  let r = run.next();
  while (!r.done) r = run.next(await r.value);
  return r.value;
}
