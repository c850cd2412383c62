import { lossNames } from '../../nn/loss.js';
import { optimizerNames } from '../../optim/by-name.js';
import { saveModel } from '../../io/node.js';
import { checkpointHooks } from '../../train/node-checkpoint.js';
import type { RunOutcome } from '../../train/run.js';
import type { Command } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, TEXT_DATA } from '../data.js';
import { isSilent, trainingProgress } from '../progress.js';
import { runSettings, trainingFlags } from '../training.js';
import { openRun } from '../train-run.js';
import { printRun } from '../train-report.js';

export const command: Command = {
  name: 'train',
  summary: 'train a model given by a spec string on a data set or your own CSV, NumPy or IDX files',
  usage:
    'paralens train (--model SPEC | --init FILE) --data NAME|PATH.csv|PATH.npz|PATH.npy|idx:DIR [--target COLUMN] [--task classify|regress] [--epochs N | --steps N] [--batch N] [--context T] [--lr X] [--optimizer NAME] [--schedule NAME] [--loss NAME] [--val-fraction F] [--seed N] [--save FILE] [--checkpoint DIR [--every N]] [--resume DIR]',
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
tokens_per_second (docs/attention.md).`,
  flags: {
    model: { type: 'string', help: 'model spec string' },
    ...dataFlags(),
    ...runtimeFlags,
    ...trainingFlags(),
    steps: { type: 'int', help: 'train for this many optimiser steps instead of --epochs (the last epoch may be partial)', range: 'positive' },
    context: { type: 'int', help: 'text data: characters per training window (T)', default: 64, range: 'positive' },
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
  },
  async run(flags, io) {
    const settings = runSettings(flags);
    const run = await openRun(flags, settings);
    const checkpoints = checkpointHooks({
      ...run.length,
      dir: flags.checkpoint as string | undefined,
      every: (flags.every as number | undefined) ?? run.length.every,
      resume: flags.resume as string | undefined,
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
    const path = flags.save as string | undefined;
    const saved = path && {
      path,
      bytes: await saveModel(
        path,
        outcome.model,
        outcome.theta,
        outcome.fileSettings,
        { preprocessing: outcome.preprocessing },
        { force: Boolean(flags.force) },
      ),
    };
    printRun(io, outcome, { checkpoints: checkpoints.summary(), ...(saved ? { saved } : {}) }, Boolean(flags.json));
    return 0;
  },
};
