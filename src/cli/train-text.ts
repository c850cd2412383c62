import { vocabSize } from '../data/text.js';
import type { TextCorpus } from '../data/text.js';
import { fnv1a } from '../train/checkpoint.js';
import { checkpointHooks } from '../train/node-checkpoint.js';
import { saveModel } from '../io/node.js';
import { scheduleByName } from '../optim/schedule.js';
import { parseSpec } from '../catalogue/index.js';
import { backendInfo, backendLabel } from '../tensor/init.js';
import { backend } from '../tensor/registry.js';
import { trainLanguageModelAsync } from '../train/language-model.js';
import type { LanguageModelResult } from '../train/language-model.js';
import { UsageError } from './args.js';
import { recurrentOptions } from './training.js';
import type { ParsedFlags } from './args.js';
import type { CliIO } from './command.js';
import { fmt, isSilent, Progress } from './progress.js';
import { loadTextData } from './text-data.js';

/** The windows per step when --batch is 0 (the whole set means nothing for a text). */
const DEFAULT_TEXT_BATCH = 32;
/** Steps between checkpoints when --every is not given (one per step would spend more time in fsync than a small model in its step). */
const DEFAULT_TEXT_EVERY = 100;

/** A checksum of the training text and its vocabulary: a run resumes only on the very text it started on. */
function textFingerprint(corpus: TextCorpus): string {
  const ids = new Uint8Array(corpus.train.buffer, corpus.train.byteOffset, corpus.train.byteLength);
  return fnv1a(ids, fnv1a(new TextEncoder().encode(corpus.vocabulary.join(''))))
    .toString(16)
    .padStart(8, '0');
}

/**
 * `paralens train` on a text data set (text:PATH, fortunes): a next-character model trained
 * on random windows of --context characters, `vocab` in the spec bound to the vocabulary
 * size. --steps N optimiser steps, or --epochs E of ⌈training characters / (batch·context)⌉
 * steps each. Reports bits per character (training, and validation at the training context)
 * and tokens per second; --save writes the model with its vocabulary and context.
 */
export async function trainOnText(flags: ParsedFlags, io: CliIO): Promise<number> {
  for (const f of ['init', 'target', 'task', 'val-fraction']) {
    if (flags[f] !== undefined)
      throw new UsageError(`train: --${f} does not apply to text data (its split is fixed: the first 90 % of the characters train, the last 10 % validate)`);
  }
  if (flags.loss !== undefined && flags.loss !== 'token-cross-entropy')
    throw new UsageError(`train: text data trains with the token-cross-entropy loss, not ${String(flags.loss)}`);
  const json = Boolean(flags.json);
  const silent = isSilent(flags);
  const context = flags.context as number,
    batch = (flags.batch as number) || DEFAULT_TEXT_BATCH;
  const corpus = loadTextData(flags.data as string, { dataDir: flags['data-dir'] as string | undefined, context });
  const V = vocabSize(corpus.vocabulary);
  const model = parseSpec(flags.model as string, { constants: { vocab: V } });
  const steps = (flags.steps as number | undefined) ?? (flags.epochs as number) * Math.ceil(corpus.train.length / (batch * context));
  const schedule = flags.schedule !== undefined && flags.schedule !== 'constant' ? { schedule: flags.schedule } : {};
  // a step draws random windows rather than passing over the data, so checkpoints count steps
  const checkpoints = checkpointHooks({
    dir: flags.checkpoint as string | undefined,
    every: (flags.every as number | undefined) ?? DEFAULT_TEXT_EVERY,
    resume: flags.resume as string | undefined,
    epochs: flags.epochs as number,
    steps,
    unit: 'step',
    settings: {
      spec: String(model),
      data: corpus.name,
      text: textFingerprint(corpus),
      loss: 'token-cross-entropy',
      optimizer: flags.optimizer,
      lr: flags.lr,
      batch,
      context,
      steps,
      seed: flags.seed,
      ...schedule,
      ...recurrentOptions(flags),
    },
  });
  const progress = new Progress(io, 'train', silent);
  // on a device backend the run stays on the device (trainLanguageModelAsync), without checkpoints (refused by train)
  const device = backend().device !== undefined;
  let r: LanguageModelResult;
  try {
    r = await trainLanguageModelAsync(model, corpus, {
      context,
      batch,
      steps,
      lr: flags.lr as number,
      optimizer: flags.optimizer as string,
      ...(flags.schedule !== undefined && flags.schedule !== 'constant'
        ? { optimizerOptions: { schedule: scheduleByName(flags.schedule as string, steps) } }
        : {}),
      seed: flags.seed as number,
      ...recurrentOptions(flags),
      ...(device ? {} : { onStart: checkpoints.hooks.onStart, resumed: checkpoints.resumedRunState, afterStep: checkpoints.hooks.afterEpoch }),
      onStep: (s, n, bits) => progress.update(s, n, `bits/char ${fmt(bits)}`),
    });
  } finally {
    checkpoints.release(); // the directory's lock, for the next run (in this process too)
  }
  progress.done();
  const out: Record<string, unknown> = {
    model: String(r.model),
    data: corpus.name,
    loss: 'token-cross-entropy',
    optimizer: flags.optimizer,
    vocab_size: V,
    context,
    batch,
    ...recurrentOptions(flags),
    steps: r.steps,
    bits_per_char: r.bitsPerChar,
    val_bits_per_char: r.valBitsPerChar,
    tokens_per_second: r.tokensPerSecond,
    seconds: r.seconds,
    parameters: r.parameters,
    train_characters: corpus.train.length,
    val_characters: corpus.val.length,
    backend: backendInfo(backend()),
    ...checkpoints.summary(),
  };
  if (flags.save) {
    out.file_bytes = await saveModel(
      flags.save as string,
      r.model,
      r.theta,
      {
        data: corpus.name,
        loss: 'token-cross-entropy',
        optimizer: flags.optimizer,
        lr: flags.lr,
        ...(flags.schedule !== 'constant' ? { schedule: flags.schedule } : {}),
        batch,
        steps: r.steps,
        seed: flags.seed,
        context,
        vocabulary: corpus.vocabulary.join(''),
        bits_per_char: r.bitsPerChar,
        val_bits_per_char: r.valBitsPerChar,
      },
      {},
      { force: Boolean(flags.force) },
    );
    out.saved = flags.save;
  }
  if (json) io.out(JSON.stringify(out) + '\n');
  else {
    io.out(`model       ${out.model}\n`);
    io.out(`data        ${corpus.name} (${corpus.train.length} training characters, ${corpus.val.length} validation; vocabulary ${V} ids)\n`);
    io.out(`parameters  ${r.parameters}\n`);
    io.out(`backend     ${backendLabel(backend())}\n`);
    io.out(`steps       ${r.steps} of ${batch} windows × ${context} characters (${fmt(r.seconds, 3)} s, ${fmt(r.tokensPerSecond, 3)} tokens/s)\n`);
    io.out(`bits/char   ${fmt(r.bitsPerChar)} training, ${fmt(r.valBitsPerChar)} validation\n`);
    if (out.resumed_from !== undefined) io.out(`resumed     from step ${out.resumed_from}\n`);
    if (out.checkpoint !== undefined) io.out(`checkpoint  ${out.checkpoint} (step ${out.checkpoint_step}; ${out.checkpoints_written} written by this run)\n`);
    if (out.saved) io.out(`saved       ${out.saved} (${out.file_bytes} bytes)\n`);
  }
  return 0;
}
