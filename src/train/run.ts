import type { Dataset } from '../data/dataset.js';
import type { Preprocessing } from '../data/preprocessing.js';
import type { TrainingSplits } from '../data/splits.js';
import type { TextCorpus } from '../data/text.js';
import { lossByName, lossForData } from '../nn/loss.js';
import { scheduleByName } from '../optim/schedule.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import type { LanguageModelResult } from './language-model.js';
import type { TrainEvent, TrainResult, TrainRunOptions } from './train.js';
import type { Trainer } from './trainer.js';

/**
 * A training run, whatever its data: rows of a data set (train/run-rows.ts) or windows of a
 * text (train/run-text.ts). The caller reads its settings once (the CLI from its flags),
 * opens the run on its data, hands it checkpoint and progress hooks, and gets back what
 * the model file records — the same path for both kinds, so a new run setting is added in
 * one place.
 */

/** The choices a run is made of, read once (the CLI's training flags). */
export interface RunSettings {
  readonly epochs: number;
  /** Stop after this many optimiser steps instead of `epochs` epochs. */
  readonly steps?: number;
  /** Rows per optimiser step (0: the whole set); for text, windows per step (0: the text default). */
  readonly batch: number;
  readonly lr: number;
  readonly optimizer: string;
  /** A loss by name (nn/loss.ts); by default the one that fits the data. */
  readonly loss?: string;
  /** A learning-rate schedule by name (optim/schedule.ts); undefined or 'constant': none. */
  readonly schedule?: string;
  readonly seed: number;
  /** Rows: hold out this fraction of the training rows for validation. */
  readonly valFraction?: number;
  /** Text: characters per training window. */
  readonly context?: number;
  /** Clip the gradient to this global L2 norm before each update (any model). */
  readonly clip?: number;
  /** Recurrent layers: truncate backpropagation through time every K steps. */
  readonly bptt?: number;
}

/** The recurrent part of a run's settings or record (clip, bptt), present only when set: as TrainOptions, as the record's fields, as --json fields. */
export function recurrentSettings(settings: { readonly clip?: number; readonly bptt?: number }): { clip?: number; bptt?: number } {
  return { ...(settings.clip !== undefined ? { clip: settings.clip } : {}), ...(settings.bptt !== undefined ? { bptt: settings.bptt } : {}) };
}

/** What a caller hands a run: checkpoint hooks (train/node-checkpoint.ts) and progress. */
export interface RunHooks {
  /** Once the Trainer exists, before the first step: a checkpoint restores it here. */
  onStart?: (trainer: Trainer) => void;
  /** After each epoch (rows) or step (text): a checkpoint is written here, with the run's own state besides the Trainer's. */
  afterEpoch?: (trainer: Trainer, runState?: Record<string, unknown>) => void;
  /** The run state the resumed checkpoint kept (what afterEpoch was given). */
  resumedRunState?: Record<string, unknown>;
  /** Rows: train's events (after each batch and epoch). */
  onEvent?: (e: TrainEvent) => void;
  /** Text: after each step, its loss in bits per character. */
  onStep?: (step: number, steps: number, bits: number) => void;
}

/** How checkpoints count a run: by epochs (rows) or optimiser steps (text), every how many by default, and how long the run is. */
export interface RunLength {
  readonly unit: 'epoch' | 'step';
  readonly every: number;
  readonly epochs: number;
  readonly steps?: number;
}

/** A run set up on its data and model, not yet started. */
export interface TrainingRun {
  readonly model: Para;
  /** The settings a checkpoint records: a run resumes only from one with the same (train/checkpoint.ts settingsMismatch). */
  readonly identity: Record<string, unknown>;
  readonly length: RunLength;
  train(hooks: RunHooks): Promise<RunOutcome>;
}

/** What a model file trained on rows records about its run (docs/files.md), before the results. */
export interface RowsRecord {
  readonly data: string;
  readonly target?: string;
  readonly task?: 'classify' | 'regress';
  readonly loss: string;
  readonly optimizer: string;
  readonly epochs: number;
  readonly batch: number;
  readonly lr: number;
  readonly seed: number;
  readonly schedule?: string;
  readonly val_fraction?: number;
  readonly clip?: number;
  readonly bptt?: number;
}

/** What a model file trained on text records about its run, before the results. */
export interface TextRecord {
  readonly data: string;
  readonly loss: 'token-cross-entropy';
  readonly optimizer: string;
  readonly lr: number;
  readonly schedule?: string;
  /** Windows per step, the default filled in. */
  readonly batch: number;
  readonly steps: number;
  readonly seed: number;
  readonly context: number;
  readonly clip?: number;
  readonly bptt?: number;
}

interface Outcome {
  readonly model: Para;
  readonly theta: Tensor[];
  /** Everything the model file records about the run: the record and the results. */
  readonly fileSettings: Record<string, unknown>;
  readonly preprocessing?: Preprocessing;
  /** What the run did that its flags did not say, one line each (a softmax head trained through its logits, the inputs' scaling). */
  readonly notes?: readonly string[];
}

export interface RowsOutcome extends Outcome {
  readonly kind: 'rows';
  readonly record: RowsRecord;
  readonly splits: TrainingSplits;
  readonly result: TrainResult;
  /** How array inputs became model inputs (data/arrays.ts describeScaling); undefined for tables and built-in sets. */
  readonly scaling?: string;
}

export interface TextOutcome extends Outcome {
  readonly kind: 'text';
  readonly record: TextRecord;
  readonly corpus: TextCorpus;
  readonly result: LanguageModelResult;
}

export type RunOutcome = RowsOutcome | TextOutcome;

/** The schedule a run names, or undefined for a constant rate. */
export function namedSchedule(settings: RunSettings): string | undefined {
  return settings.schedule !== undefined && settings.schedule !== 'constant' ? settings.schedule : undefined;
}

/**
 * What `train` needs from a run's settings on rows: the loss (named, or the one that fits the
 * data), the optimiser, its rate and schedule (over all the steps of the run), the minibatch
 * size (0: the whole set) and the seed.
 */
export function trainOptions(settings: RunSettings, data: Dataset): TrainRunOptions {
  const { epochs } = settings;
  const batch = settings.batch || undefined;
  const steps = settings.steps ?? epochs * Math.ceil(data.x.batch / Math.min(batch ?? data.x.batch, data.x.batch));
  const named = namedSchedule(settings);
  return {
    loss: settings.loss !== undefined ? lossByName(settings.loss) : lossForData(data),
    epochs,
    batch,
    lr: settings.lr,
    optimizer: settings.optimizer,
    ...(named !== undefined ? { optimizerOptions: { schedule: scheduleByName(named, steps) } } : {}),
    seed: settings.seed,
    ...recurrentSettings(settings),
  };
}
