import { parseSpec } from '../catalogue/index.js';
import { vocabSize } from '../data/text.js';
import type { TextCorpus } from '../data/text.js';
import { RangeArgError } from '../errors.js';
import { scheduleByName } from '../optim/schedule.js';
import type { Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { Tensor } from '../tensor/tensor.js';
import { fnv1a } from './checkpoint.js';
import { trainLanguageModelAsync } from './language-model.js';
import { namedSchedule, recurrentSettings } from './run.js';
import type { RunSettings, TextRecord, TrainingRun } from './run.js';

/** The windows per step when the batch is 0 (the whole set means nothing for a text). */
export const DEFAULT_TEXT_BATCH = 32;
/** Steps between checkpoints by default (one per step would spend more time in fsync than a small model in its step). */
export const DEFAULT_TEXT_EVERY = 100;

/** A checksum of the training text and its vocabulary: a run resumes only on the very text it started on. */
export function textFingerprint(corpus: TextCorpus): string {
  const ids = new Uint8Array(corpus.train.buffer, corpus.train.byteOffset, corpus.train.byteLength);
  return fnv1a(ids, fnv1a(new TextEncoder().encode(corpus.vocabulary.join(''))))
    .toString(16)
    .padStart(8, '0');
}

/**
 * A run on a text: a next-character model trained on random windows of `context`
 * characters (train/language-model.ts), `vocab` in the spec bound to the vocabulary size.
 * `steps` optimiser steps, or `epochs` of ⌈training characters / (batch·context)⌉ steps each;
 * checkpoints count steps, since a step draws windows rather than passing over the data.
 */
export function textRun(
  spec: string | Para,
  corpus: TextCorpus,
  settings: RunSettings,
  opts: { theta?: Tensor[]; init?: string; notes?: readonly string[] } = {},
): TrainingRun {
  const { context } = settings;
  if (context === undefined) throw new RangeArgError('a run on text needs a context (characters per training window)');
  if ((settings.loss !== undefined && settings.loss !== 'token-cross-entropy') || settings.valFraction !== undefined)
    throw new RangeArgError(
      'a run on text trains with the token-cross-entropy loss and validates on the last 10 % of the text (no loss or validation fraction of its own)',
    );
  const batch = settings.batch || DEFAULT_TEXT_BATCH;
  // a model file's morphism (--init) is read again from its spec, free to take windows of any length its layers allow
  const model = parseSpec(String(spec), { constants: { vocab: vocabSize(corpus.vocabulary) } });
  const steps = settings.steps ?? settings.epochs * Math.ceil(corpus.train.length / (batch * context));
  const schedule = namedSchedule(settings);
  // the run's record, built once: the model file keeps it with the results, a checkpoint
  // with the model and a checksum of the text
  const record: TextRecord = {
    data: corpus.name,
    loss: 'token-cross-entropy',
    optimizer: settings.optimizer,
    lr: settings.lr,
    ...(schedule !== undefined ? { schedule } : {}),
    batch,
    steps,
    seed: settings.seed,
    context,
    ...recurrentSettings(settings),
  };
  return {
    model,
    identity: { spec: String(model), text: textFingerprint(corpus), ...record },
    length: { unit: 'step', every: DEFAULT_TEXT_EVERY, epochs: settings.epochs, steps },
    async train(hooks) {
      // on a device backend the run stays on the device, without checkpoints (trainLanguageModelAsync)
      const device = backend().device !== undefined;
      const result = await trainLanguageModelAsync(model, corpus, {
        context,
        batch,
        steps,
        lr: settings.lr,
        optimizer: settings.optimizer,
        ...(schedule !== undefined ? { optimizerOptions: { schedule: scheduleByName(schedule, steps) } } : {}),
        seed: settings.seed,
        ...(opts.theta ? { theta: opts.theta } : {}),
        ...recurrentSettings(settings),
        ...(device ? {} : { onStart: hooks.onStart, resumed: hooks.resumedRunState, afterStep: hooks.afterEpoch }),
        onStep: hooks.onStep,
      });
      const fileSettings = {
        ...record,
        steps: result.steps,
        vocabulary: corpus.vocabulary.join(''),
        bits_per_char: result.bitsPerChar,
        val_bits_per_char: result.valBitsPerChar,
        ...(opts.init !== undefined ? { init: opts.init } : {}),
      };
      return { kind: 'text', record, corpus, result, model: result.model, theta: result.theta, fileSettings, notes: opts.notes ?? [] };
    },
  };
}
