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
import { defineCommand } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, dataForms, isTextData, loadData, loadTextData, TEXT_DATA } from '../data.js';
import { isSilent, trainingProgress } from '../progress.js';
import { runSettings, trainingFlags } from '../training.js';
import { printRun } from '../train-report.js';

const flags = {
  model: { type: 'string', help: 'model spec string' },
  ...dataFlags(),
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
    'paralens train (--model SPEC | --init FILE) --data NAME|PATH.csv|PATH.npz|PATH.npy|idx:DIR [--target COLUMN] [--task classify|regress] [--epochs N | --steps N] [--batch N] [--context T] [--lr X] [--optimizer NAME] [--schedule NAME] [--loss NAME] [--val-fraction F] [--clip X] [--bptt K] [--seed N] [--save FILE] [--checkpoint DIR [--every N]] [--resume DIR]',
  description: `Trains the morphism that SPEC denotes (e.g. 'dense(2,4) >> sigmoid >> dense(4,1)') by iterating the
optimiser's update endomorphism over minibatches. Data sets with 20 rows or more and no test split of
their own are split 80/20 (stratified, seeded) and test metrics are reported; --val-fraction holds out
part of the training rows as well and reports validation loss and accuracy as training goes.
Your own data: a CSV (header row; --target COLUMN, default the last; the task is classification when
the target is text or a few integers, regression otherwise, or --task; numeric columns are
standardised with the training rows' mean and std, text columns one-hot encoded), NumPy .npz with
arrays x and y (or x.npy with --target y.npy; 8-bit arrays are scaled to [0,1]), or idx:DIR with
IDX image/label files. The preprocessing is saved in the model file (docs/files.md), so predict
applies it to raw rows. --init FILE starts from the weights of a model file (train --save, paralens
import, PyTorch's train.py); the model is the file's, and --model, if given, must be the same spec.
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

function openTextRun(data: string, flags: TrainFlags, settings: RunSettings): TrainingRun {
  for (const f of ['init', 'target', 'task', 'val-fraction'] as const) {
    if (flags[f] !== undefined)
      throw new UsageError(`train: --${f} does not apply to text data (its split is fixed: the first 90 % of the characters train, the last 10 % validate)`);
  }
  if (flags.loss !== undefined && flags.loss !== 'token-cross-entropy')
    throw new UsageError(`train: text data trains with the token-cross-entropy loss, not ${flags.loss}`);
  return textRun(specOf(flags), loadTextData(data, { dataDir: flags['data-dir'], context: flags.context }), settings);
}

async function openRowsRun(data: string, flags: TrainFlags, settings: RunSettings): Promise<TrainingRun> {
  const init = flags.init !== undefined ? await loadModel(flags.init) : undefined;
  const model = init ? init.model : parseSpec(specOf(flags));
  if (init && flags.model && String(parseSpec(flags.model)) !== String(parseSpec(String(init.model)))) {
    throw new UsageError(`train: --model ${flags.model} is not the model of --init ${flags.init} (${init.model}); drop --model or give that spec`);
  }
  // room for θ and the header, before any data is read or any epoch run
  if (flags.save) checkWritableSync(flags.save, { force: flags.force, bytes: 4 * model.params.reduce((n, p) => n + sizeOf(p.shape), 0) + 65536 });
  const loaded = await loadData(data, { seed: settings.seed, dataDir: flags['data-dir'], model, target: flags.target, task: flags.task });
  if (loaded.data.y === loaded.data.x)
    throw new UsageError(`train: ${loaded.data.name} has no target to learn; give --target Y.npy, or an .npz with arrays x and y`);
  return rowsRun(model, loaded, settings, { theta: init?.theta, init: flags.init, dataDir: flags['data-dir'] });
}

/** Writes the trained model and what it was trained with (io/model-file.ts); returns the bytes written. */
function saveRun(path: string, outcome: RunOutcome, force: boolean | undefined): Promise<number> {
  return saveModel(path, outcome.model, outcome.theta, outcome.fileSettings, { preprocessing: outcome.preprocessing }, { force: Boolean(force) });
}
