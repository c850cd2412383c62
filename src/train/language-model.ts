import { DeviceSupportError, RangeArgError } from '../errors.js';
import { checkWindow, sampleWindows, spacedWindows, vocabSize } from '../data/text.js';
import { TextStreams } from '../data/text-streams.js';
import { hasRecurrentLayers, StateCarry } from '../nn/recurrent/index.js';
import type { TextCorpus } from '../data/text.js';
import { tokenCrossEntropy } from '../nn/loss.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { Rng } from '../random/rng.js';
import { backend } from '../tensor/registry.js';
import { Tensor } from '../tensor/tensor.js';
import { DeviceTrainer, IN_FLIGHT } from './device-trainer.js';
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
  /** Called once the Trainer is built, before the first step: a checkpoint restores its state here (training then resumes at `trainer.step`). */
  onStart?: (trainer: Trainer) => void;
  /** The run state a checkpoint kept with that Trainer state (what afterStep was given); required when onStart resumes a run. */
  resumed?: Record<string, unknown>;
  /** Called after each step with the run's state besides the Trainer's (checkpoints are written here). */
  afterStep?: (trainer: Trainer, runState: LanguageModelRunState) => void;
}

/**
 * What a run holds besides its Trainer: the window sampler's generator and the running sum of
 * the last tenth's losses. With the Trainer's snapshot it is all the next step depends on,
 * so a run resumed from both ends with the same bits as one never stopped.
 */
export interface LanguageModelRunState extends Record<string, unknown> {
  /** The window sampler's xoshiro128** state words. */
  sampler: number[];
  /** Σ of the bits per character of the steps so far in the last tenth. */
  tail_bits: number;
  /** A recurrent model's: where each stream's next window starts (TextStreams). */
  streams?: number[];
  /** A recurrent model's: the states its layers carry into the next window (StateCarry.save). */
  carried?: { shape: number[]; values: number[] }[];
}

function checkRunState(s: Record<string, unknown> | undefined, step: number, recurrent: boolean): LanguageModelRunState {
  const words = s?.sampler,
    tail = s?.tail_bits;
  if (!(Array.isArray(words) && words.length === 4 && words.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32) && words.some((w) => w !== 0))) {
    throw new RangeArgError(
      `resuming text training at step ${step} needs the window sampler's state (4 unsigned 32-bit words, not all zero) in the checkpoint's run state`,
    );
  }
  if (typeof tail !== 'number' || !Number.isFinite(tail))
    throw new RangeArgError(`resuming text training needs a finite tail_bits in the checkpoint's run state, got ${JSON.stringify(tail)}`);
  if (!recurrent) return { sampler: words as number[], tail_bits: tail };
  const { streams, carried } = s as { streams?: unknown; carried?: unknown };
  if (!Array.isArray(streams) || !Array.isArray(carried))
    throw new RangeArgError(`resuming a recurrent model's text training needs the streams' positions and the carried states in the checkpoint's run state`);
  return { sampler: words as number[], tail_bits: tail, streams: streams as number[], carried: carried as LanguageModelRunState['carried'] };
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

/** A language-model run set up: its trainer, the steps still to take, the window draws, and how a step's loss is recorded. */
interface LanguageModelRun {
  trainer: Trainer;
  /** The first step this run takes (past 0 when it resumes). */
  first: number;
  fill: (xb: Tensor, yb: Tensor) => void;
  /** A recurrent model's carried states (the pass's initial states, consecutive windows): Trainer.stepOn's carry. */
  carry?: StateCarry;
  /** Records step s's loss (nats) and reports it. */
  record(s: number, loss: number): void;
  result(theta: Tensor[], seconds: number): LanguageModelResult;
}

function prepare(model: Para, corpus: TextCorpus, opts: LanguageModelOptions): LanguageModelRun {
  const { context: T, batch: B, steps } = opts;
  for (const [name, v] of [
    ['context', T],
    ['batch', B],
    ['steps', steps],
  ] as const) {
    if (!(Number.isInteger(v) && v > 0)) throw new RangeArgError(`${name} must be a positive integer, got ${v}`);
  }
  checkWindow(`${corpus.name} (training text)`, corpus.train, T);
  checkWindow(`${corpus.name} (validation text)`, corpus.val, T);
  const V = vocabSize(corpus.vocabulary);
  const m = atContext(model, T, V);
  // the trainer sees B windows of T ids and their next-character targets: every step fills
  // its own; these, evenly spaced over the text, give it their shapes, and an optimiser that
  // binds to training inputs (the natural gradient's Fisher) a fixed sample of the text
  const shapes = { name: corpus.name, x: Tensor.zeros([B, T]), y: Tensor.zeros([B, T]) };
  spacedWindows(corpus.train, T, shapes.x.data, shapes.y.data);
  const trainer = new Trainer(m, shapes, { ...opts, loss: tokenCrossEntropy, batch: B });
  let windows = trainer.rng.split();
  // a recurrent model reads B streams of consecutive windows, its state carried from each to the next
  const recurrent = hasRecurrentLayers(m);
  const streams = recurrent ? new TextStreams(corpus.train.length, T, B, windows) : undefined;
  const carry = recurrent ? new StateCarry() : undefined;
  const tail = Math.max(1, Math.ceil(steps / 10));
  let tailSum = 0;
  opts.onStart?.(trainer);
  const first = trainer.step;
  if (first > steps) throw new RangeArgError(`the run to resume is at step ${first}, beyond its ${steps} steps`);
  if (first > 0) {
    const resumed = checkRunState(opts.resumed, first, recurrent);
    windows = new Rng(resumed.sampler);
    tailSum = resumed.tail_bits;
    streams?.restore(resumed.streams!);
    carry?.load(resumed.carried!);
  }
  const fill = streams
    ? (xb: Tensor, yb: Tensor): void => {
        const restarted = streams.next(corpus.train, xb.data, yb.data);
        carry!.begin();
        carry!.reset(restarted);
      }
    : (xb: Tensor, yb: Tensor): void => sampleWindows(corpus.train, T, windows, xb.data, yb.data);
  return {
    trainer,
    first,
    fill,
    carry,
    record(s, loss) {
      const bits = loss / Math.LN2;
      if (s >= steps - tail) tailSum += bits;
      const recurrentState = streams ? { streams: [...streams.positions], carried: carry!.save() } : {};
      opts.afterStep?.(trainer, { sampler: windows.state().map((w) => w >>> 0), tail_bits: tailSum, ...recurrentState });
      opts.onStep?.(s + 1, steps, bits);
    },
    result: (theta, seconds) => ({
      model: trainer.model,
      theta,
      steps,
      bitsPerChar: tailSum / tail,
      valBitsPerChar: bitsPerChar(trainer.model, theta, corpus.val, T, V),
      // the steps this process took (a resumed run's, from where it resumed)
      tokensPerSecond: (B * T * (steps - first)) / seconds,
      seconds,
      parameters: countParameters(theta),
    }),
  };
}

/**
 * Trains a next-character model: each step draws `batch` windows of `context` characters at
 * seeded random starts in the training text and takes one optimiser step on the mean
 * token cross-entropy of predicting every next character (Trainer.stepOn). A model with
 * recurrent layers reads `batch` streams of consecutive windows instead (TextStreams), each
 * window starting from the states the previous one ended in (a StateCarry; the pullback stops
 * at the window's start, and within it every `bptt` steps when that is set).
 */
export function trainLanguageModel(model: Para, corpus: TextCorpus, opts: LanguageModelOptions): LanguageModelResult {
  const run = prepare(model, corpus, opts);
  const t0 = performance.now();
  for (let s = run.first; s < opts.steps; s++) run.record(s, run.trainer.stepOn(opts.batch, run.fill, run.carry).loss);
  return run.result(run.trainer.theta, (performance.now() - t0) / 1000);
}

/**
 * trainLanguageModel, resident on the device on a backend with device memory (webgpu): the
 * same windows and steps, queued a few ahead (DeviceTrainer.stepOn), only each step's loss
 * coming back; at the end the parameters come back and the validation text is scored on the
 * host. Checkpoints (onStart, afterStep) need host parameters after every step and are
 * refused there. Elsewhere it is trainLanguageModel.
 */
export async function trainLanguageModelAsync(model: Para, corpus: TextCorpus, opts: LanguageModelOptions): Promise<LanguageModelResult> {
  const device = backend().device;
  if (!device) return trainLanguageModel(model, corpus, opts);
  if (opts.onStart || opts.afterStep)
    throw new DeviceSupportError(`${backend().name} does not write checkpoints yet; train with --backend wasm for --checkpoint and --resume`);
  const run = prepare(model, corpus, opts);
  // ids on the device are not checked there: a window holding the largest id (and 0) goes
  // through the model on the host first, so an embedding too small for the vocabulary is
  // refused as on the host
  const probe = Tensor.zeros([1, opts.context]);
  probe.data[0] = vocabSize(corpus.vocabulary) - 1;
  run.trainer.model.forward(run.trainer.theta, probe, makeCtx());
  const dt = new DeviceTrainer(run.trainer, device);
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let s = 0; s < opts.steps; s++) {
    const step = dt.stepOn(opts.batch, run.fill).then((loss) => run.record(s, loss));
    step.catch(() => {}); // awaited below, in order; a later step failing first must not go unhandled
    pending.push(step);
    if (pending.length > IN_FLIGHT) await pending.shift();
  }
  await Promise.all(pending);
  const seconds = (performance.now() - t0) / 1000;
  return run.result(await dt.hostTheta(), seconds);
}
