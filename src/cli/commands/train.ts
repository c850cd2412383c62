import { parseSpec } from '../../catalogue/index.js';
import { lossNames } from '../../nn/loss.js';
import { optimizerNames } from '../../optim/by-name.js';
import { checkWritableSync } from '../../io/node-fs.js';
import { loadModel, saveModel } from '../../io/node.js';
import { sizeOf } from '../../tensor/tensor.js';
import { backend } from '../../tensor/registry.js';
import { checkpointHooks } from '../../train/node-checkpoint.js';
import type { RunOutcome, RunSettings, TrainingRun } from '../../train/run.js';
import { rowsRun } from '../../train/run-rows.js';
import { textRun } from '../../train/run-text.js';
import { UsageError } from '../args.js';
import type { Flags, ParsedFlags } from '../args.js';
import type { ArrayScale } from '../../data/arrays.js';
import type { Para } from '../../para/para.js';
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, dataForms, isArrayData, isTextData, loadData, loadTextData, scaleFlag, TEXT_DATA } from '../data.js';
import { readsTokenIds } from '../../train/model-ends.js';
import { ShapeError } from '../../errors.js';
import { vocabSize } from '../../data/text.js';
import { isSilent, trainingProgress } from '../progress.js';
import { runSettings, trainingFlags } from '../training.js';
import { printRun } from '../train-report.js';

const flags = {
  model: { type: 'string', help: 'model spec string' },
  ...dataFlags(),
  ...scaleFlag(),
  ...runtimeFlags,
  ...trainingFlags(),
  steps: { type: 'int', help: 'train for this many optimiser steps instead of --epochs (the last epoch may be partial)', range: 'positive' },
  context: { type: 'int', help: 'text data: characters per training window (T)', default: 64, range: 'positive' },
  bptt: {
    type: 'int',
    range: 'positive',
    help: "recurrent layers: truncate backpropagation through time every K steps (default: the whole window; text windows carry the state across, the gradient stops at each window's start)",
  },
  save: { type: 'string', help: 'write the trained model to this .safetensors file', output: true },
  checkpoint: { type: 'string', help: 'write atomic checkpoints (weights, optimiser and RNG state) into this directory' },
  every: {
    type: 'int',
    help: 'with --checkpoint: write one every N epochs (default 1), for text data every N steps (default 100), and after the last',
    range: 'positive',
  },
  init: { type: 'string', help: 'start from the weights of this model file (its spec is the model; --model must match it)' },
  resume: {
    type: 'string',
    help: "continue from the checkpoint in this directory (same flags; --epochs may grow, but not a text run's --steps); keeps checkpointing there",
  },
} as const satisfies Flags;

export const command = defineCommand({
  name: 'train',
  summary: 'train a model given by a spec string on a data set or your own CSV, NumPy or IDX files',
  usage:
    'paralens train (--model SPEC | --init FILE) --data NAME|PATH.csv|PATH.npz|PATH.npy|idx:DIR [--target COLUMN] [--task classify|regress] [--scale none|unit|standard] [--epochs N | --steps N] [--batch N] [--context T] [--lr X] [--optimizer NAME] [--schedule NAME] [--loss NAME] [--val-fraction F] [--clip X] [--bptt K] [--seed N] [--save FILE] [--checkpoint DIR [--every N]] [--resume DIR]',
  description: `Trains the morphism that SPEC denotes (e.g. 'dense(2,4) >> sigmoid >> dense(4,1)') by iterating the
optimiser's update endomorphism over minibatches. Data sets with 20 rows or more and no test split of
their own are split 80/20 (stratified, seeded) and test metrics are reported; --val-fraction holds out
part of the training rows as well and reports validation loss and accuracy as training goes.
Your own data: a CSV (header row; --target COLUMN, default the last; the task is classification when
the target is text or a few integers, regression otherwise, or --task; numeric columns are
standardised with the training rows' mean and std, text columns one-hot encoded), NumPy .npz with
arrays x and y (or x.npy with --target y.npy; 8-bit arrays are scaled to [0,1]), or idx:DIR with
IDX image/label files. The preprocessing is saved in the model file (docs/files.md), so predict
applies it to raw rows; --scale none|unit|standard chooses how arrays become inputs (token ids are
never scaled). --init FILE starts from the weights of a model file (train --save, paralens import,
PyTorch's train.py); the model is the file's, and --model, if given, must be the same spec. A model
ending in softmax or log-softmax trains through the logits before it (the saved model keeps the
head); one that reads token ids and predicts the next one trains on text too (docs/onnx.md).
Losses: ${lossNames().join(', ')} (bce and softmax-cross-entropy take logits);
optimisers: ${optimizerNames().join(', ')}.
Text (${TEXT_DATA.join(', ')}; character-level: the vocabulary is the training text's characters plus one
unknown id; 90 % train, 10 % validate) trains a next-character model on --batch windows of --context
characters per step; vocab in the spec stands for the vocabulary size, e.g. 'embedding(vocab,64) >>
transformer(64,4,256,rope) >> layernorm(64) >> dense(64,vocab)'. For text an epoch is
⌈training characters / (batch·context)⌉ steps; --json reports bits_per_char, val_bits_per_char and
tokens_per_second (docs/attention.md). A model with recurrent layers ('embedding(vocab,64) >> lstm(64,256)
>> dense(256,vocab)') reads --batch streams of consecutive windows, its state carried from each window to
the next, and is evaluated the same way; --bptt K truncates its gradient every K steps (docs/recurrent.md).
--clip X clips the gradient's global norm for any model.`,
  flags,
  async run(flags, io) {
    const settings = runSettings(flags);
    const run = await openRun(flags, settings);
    const checkpoints = checkpointHooks({
      ...run.length,
      dir: flags.checkpoint,
      every: flags.every ?? run.length.every,
      resume: flags.resume,
      settings: run.identity,
    });
    const progress = trainingProgress(io, isSilent(flags));
    let outcome: RunOutcome;
    try {
      outcome = await run.train({ ...checkpoints.hooks, resumedRunState: checkpoints.resumedRunState, onEvent: progress.onEvent, onStep: progress.onStep });
    } finally {
      checkpoints.release(); // the directory's lock, for the next run (in this process too)
    }
    progress.done();
    const saved = flags.save ? { path: flags.save, bytes: await saveRun(flags.save, outcome, flags.force) } : undefined;
    printRun(io, outcome, { checkpoints: checkpoints.summary(), ...(saved ? { saved } : {}) }, Boolean(flags.json));
    return 0;
  },
});

type TrainFlags = ParsedFlags<typeof flags>;

const modelRequired = (): UsageError => new UsageError('train: --model SPEC is required (or --init FILE), e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');

/** --model, which a run without --init has (openRun refused a call with neither; a text run takes no --init). */
function specOf(flags: TrainFlags): string {
  if (!flags.model) throw modelRequired();
  return flags.model;
}

/**
 * The run a train call asks for, opened on its data: a text data set (text:PATH, fortunes)
 * is a run on windows of characters (train/run-text.ts), any other --data a run on rows
 * (train/run-rows.ts). What the flags cannot mean is refused here, before any data is read.
 */
async function openRun(flags: TrainFlags, settings: RunSettings): Promise<TrainingRun> {
  if (!flags.model && !flags.init) throw modelRequired();
  if (flags.init && flags.resume) throw new UsageError('train: --init and --resume both set the starting weights; give one');
  if (!flags.data) throw new UsageError(`train: --data NAME is required (${dataForms()}; ${TEXT_DATA.join('; ')})`);
  if (backend().device && (flags.checkpoint || flags.resume))
    throw new UsageError(
      `train: --checkpoint and --resume need host parameters every epoch; --backend ${backend().name} keeps them on the device (use --backend wasm)`,
    );
  return isTextData(flags.data) ? openTextRun(flags.data, flags, settings) : openRowsRun(flags.data, flags, settings);
}

async function openTextRun(data: string, flags: TrainFlags, settings: RunSettings): Promise<TrainingRun> {
  for (const f of ['target', 'task', 'val-fraction', 'scale'] as const) {
    if (flags[f] !== undefined)
      throw new UsageError(`train: --${f} does not apply to text data (its split is fixed: the first 90 % of the characters train, the last 10 % validate)`);
  }
  if (flags.loss !== undefined && flags.loss !== 'token-cross-entropy')
    throw new UsageError(`train: text data trains with the token-cross-entropy loss, not ${flags.loss}`);
  if (flags.init === undefined) return textRun(specOf(flags), loadTextData(data, { dataDir: flags['data-dir'], context: flags.context }), settings);
  return initTextRun(data, flags.init, flags, settings);
}

/**
 * A text run from a model file's weights (an imported character model, or one trained here):
 * the model reads token ids and predicts one of V ids at every position. Its vocabulary is the
 * file's when it records one (trained here), else the text's V − 1 most frequent characters.
 */
async function initTextRun(data: string, path: string, flags: TrainFlags, settings: RunSettings): Promise<TrainingRun> {
  const init = await loadModel(path);
  const { model } = init;
  sameModel(flags, path, model);
  if (!readsTokenIds(model) && init.settings.onnx_input !== 'ids')
    throw new UsageError(`train: ${path} (${model}) does not read token ids; text data trains a next-character model, which starts with an embedding`);
  const T = flags.context;
  try {
    parseSpec(String(model)).at([T]);
  } catch (e) {
    if (!(e instanceof ShapeError)) throw e;
    const fixed = model.dom?.[0];
    throw new UsageError(
      fixed !== undefined && fixed !== T
        ? `train: ${path} reads windows of ${fixed} ids, not ${T}; give --context ${fixed}`
        : `train: ${path} cannot read windows of ${T} ids: ${e.message}`,
    );
  }
  const V = model.cod?.[model.cod.length - 1];
  if (V === undefined || model.cod!.length !== 2)
    throw new UsageError(`train: ${path} (${model}) outputs [*,${model.cod?.join(',') ?? '…'}]; a next-character model outputs [*,T,V]`);
  const recorded = typeof init.settings.vocabulary === 'string' ? Array.from(init.settings.vocabulary) : undefined;
  if (recorded && vocabSize(recorded) !== V) throw new UsageError(`train: ${path} records a vocabulary of ${vocabSize(recorded)} ids but outputs ${V}`);
  const corpus = loadTextData(data, { dataDir: flags['data-dir'], context: T, ...(recorded ? { vocabulary: recorded } : { vocabularySize: V - 1 }) });
  const notes = recorded
    ? []
    : [`${path} records no vocabulary: ids 0…${V - 2} are the training text's most frequent characters (in code-point order), id ${V - 1} any other`];
  return textRun(model, corpus, settings, { theta: init.theta, init: path, notes });
}

/** --model, when given with --init, must be the file's spec. */
function sameModel(flags: TrainFlags, path: string, model: Para): void {
  if (flags.model && String(parseSpec(flags.model)) !== String(parseSpec(String(model))))
    throw new UsageError(`train: --model ${flags.model} is not the model of --init ${path} (${model}); drop --model or give that spec`);
}

async function openRowsRun(data: string, flags: TrainFlags, settings: RunSettings): Promise<TrainingRun> {
  const init = flags.init !== undefined ? await loadModel(flags.init) : undefined;
  const model = init ? init.model : parseSpec(specOf(flags));
  if (init) sameModel(flags, flags.init!, model);
  // token ids reach the embedding as they are: never scaled or standardised
  const ids = readsTokenIds(model) || init?.settings.onnx_input === 'ids';
  if (ids && flags.scale !== undefined && flags.scale !== 'none')
    throw new UsageError(`train: ${model} reads token ids, which are never scaled; drop --scale ${flags.scale}`);
  const scale = ids && isArrayData(data) ? 'none' : (flags.scale as ArrayScale | undefined);
  // room for θ and the header, before any data is read or any epoch run
  if (flags.save) checkWritableSync(flags.save, { force: flags.force, bytes: 4 * model.params.reduce((n, p) => n + sizeOf(p.shape), 0) + 65536 });
  const loaded = await loadData(data, { seed: settings.seed, dataDir: flags['data-dir'], model, target: flags.target, task: flags.task, scale, ids });
  if (loaded.data.y === loaded.data.x)
    throw new UsageError(`train: ${loaded.data.name} has no target to learn; give --target Y.npy, or an .npz with arrays x and y`);
  const declaredLink = typeof init?.settings.onnx_output_link === 'string' ? init.settings.onnx_output_link : undefined;
  return rowsRun(model, loaded, settings, { theta: init?.theta, init: flags.init, dataDir: flags['data-dir'], scale: flags.scale, declaredLink });
}

/** Writes the trained model and what it was trained with (io/model-file.ts); returns the bytes written. */
function saveRun(path: string, outcome: RunOutcome, force: boolean | undefined): Promise<number> {
  return saveModel(path, outcome.model, outcome.theta, outcome.fileSettings, { preprocessing: outcome.preprocessing }, { force: Boolean(force) });
}
