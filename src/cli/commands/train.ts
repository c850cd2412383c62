import { stratifiedSplit } from '../../data/dataset.js';
import type { Dataset, Split } from '../../data/dataset.js';
import { lossNames } from '../../nn/loss.js';
import { optimizerNames } from '../../optim/by-name.js';
import { parseSpec } from '../../spec/index.js';
import { train } from '../../train/train.js';
import { builtInDataNames } from '../../data/registry.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { loadData } from '../data.js';
import { fmt, Progress } from '../progress.js';
import { trainingFlags, trainRunOptions } from '../training.js';
import type { Para } from '../../para/para.js';
import { checkSavePath, saveModel } from '../../io/node.js';
import { checkpointHooks } from '../../train/node-checkpoint.js';
import { backendInfo, backendLabel } from '../../tensor/init.js';
import { backend } from '../../tensor/registry.js';
import { isTextData, TEXT_DATA } from '../text-data.js';
import { trainOnText } from '../train-text.js';

/** Splits off a stratified 20 % test set for data sets with more than a handful of rows. */
export function maybeSplit(data: Dataset, seed: number, testFraction = 0.2): Split | undefined {
  return data.x.batch >= 20 ? stratifiedSplit(data, testFraction, seed) : undefined;
}

export const command: Command = {
  name: 'train',
  summary: 'train a model given by a spec string on a data set',
  usage: 'paralens train --model SPEC --data NAME [--epochs N | --steps N] [--batch N] [--context T] [--lr X] [--optimizer NAME] [--loss NAME] [--seed N] [--save FILE] [--checkpoint DIR [--every N]] [--resume DIR]',
  description: `Trains the morphism that SPEC denotes (e.g. 'dense(2,4) >> sigmoid >> dense(4,1)') by iterating the
optimiser's update endomorphism over minibatches. Data sets with 20 rows or more are split 80/20
(stratified, seeded) and test accuracy is reported. Losses: ${lossNames().join(', ')} (bce and
softmax-cross-entropy take logits). Optimisers: ${optimizerNames().join(', ')}.
Data sets: ${[...builtInDataNames(), 'fashion-mnist', ...TEXT_DATA].join(', ')}. Text data (character-level:
the vocabulary is the training text's characters plus one unknown id; 90 % train, 10 % validate) trains a
next-character model on --batch windows of --context characters per step; vocab in the spec stands for the
vocabulary size, e.g. 'embedding(vocab,64) >> transformer(64,4,256,rope) >> layernorm(64) >> dense(64,vocab)'.
For text an epoch is ⌈training characters / (batch·context)⌉ steps; --json reports bits_per_char,
val_bits_per_char and tokens_per_second.`,
  flags: {
    model: { type: 'string', help: 'model spec string' },
    data: { type: 'string', help: 'data set name' },
    ...runtimeFlags,
    ...trainingFlags(),
    steps: { type: 'int', help: 'train for this many optimiser steps instead of --epochs (the last epoch may be partial)', range: 'positive' },
    context: { type: 'int', help: 'text data: characters per training window (T)', default: 64, range: 'positive' },
    'data-dir': { type: 'string', help: 'directory of IDX files for fashion-mnist (default /usr/share/datasets/fashion-mnist), or of the fortune files' },
    save: { type: 'string', help: 'write the trained model to this .safetensors file' },
    checkpoint: { type: 'string', help: 'write atomic checkpoints (weights, optimiser and RNG state) into this directory' },
    every: { type: 'int', help: 'with --checkpoint: write one every N epochs (and after the last)', default: 1, range: 'positive' },
    resume: { type: 'string', help: 'continue from the checkpoint in this directory (same flags; --epochs may grow); keeps checkpointing there' },
  },
  async run(flags, io) {
    if (!flags.model) throw new UsageError('train: --model SPEC is required, e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');
    if (!flags.data) throw new UsageError(`train: --data NAME is required; known: ${[...builtInDataNames(), 'fashion-mnist', ...TEXT_DATA].join(', ')}`);
    if (isTextData(flags.data as string)) return trainOnText(flags, io);
    const json = Boolean(flags.json);
    const seed = flags.seed as number;
    const model: Para = parseSpec(flags.model as string);
    if (flags.save) await checkSavePath(flags.save as string);
    const data = await loadData(flags.data as string, { seed, dataDir: flags['data-dir'] as string | undefined, model });
    const options = trainRunOptions(flags, data);
    const loss = options.loss;
    const split = data.name === 'fashion-mnist' ? undefined : maybeSplit(data, seed);
    const trainSet = split?.train ?? data;
    const progress = new Progress(io, 'train', json);
    const checkpoints = checkpointHooks({
      dir: flags.checkpoint as string | undefined, every: flags.every as number, resume: flags.resume as string | undefined, epochs: flags.epochs as number,
      settings: { spec: String(model), data: data.name, rows: trainSet.x.batch, loss: loss.name, optimizer: flags.optimizer, lr: flags.lr, batch: flags.batch, seed },
    });
    const result = train(model, trainSet, {
      ...options,
      steps: flags.steps as number | undefined,
      ...checkpoints.hooks,
      test: split?.test ?? (data as Dataset & { test?: Dataset }).test,
      evalEvery: Math.max(1, Math.floor((flags.epochs as number) / 20)),
      onEvent: (e) => {
        if (e.type === 'epoch') progress.update(e.epoch, e.epochs, `loss ${fmt(e.loss)}`);
      },
    });
    progress.done();
    const extra: Record<string, unknown> = checkpoints.summary();
    if (flags.save) {
      const settings = {
        data: data.name,
        loss: loss.name,
        optimizer: flags.optimizer,
        epochs: result.epochs,
        batch: flags.batch,
        lr: flags.lr,
        seed,
        final_loss: result.finalLoss,
        accuracy: result.accuracy,
        test_accuracy: result.testAccuracy,
        classes: data.classes,
        feature_names: data.featureNames,
      };
      const bytes = await saveModel(flags.save as string, result.model, result.theta, settings);
      extra.saved = flags.save;
      extra.file_bytes = bytes;
    }
    const out = {
      model: String(result.model),
      data: data.name,
      loss: loss.name,
      optimizer: flags.optimizer,
      final_loss: result.finalLoss,
      accuracy: result.accuracy,
      test_accuracy: result.testAccuracy,
      epochs: result.epochs,
      seconds: result.seconds,
      parameters: result.parameters,
      backend: backendInfo(backend()),
      ...extra,
    };
    if (json) io.out(JSON.stringify(out) + '\n');
    else {
      io.out(`model       ${out.model}\n`);
      io.out(`data        ${data.name} (${trainSet.x.batch} training rows${split ? `, ${split.test.x.batch} test rows` : ''})\n`);
      io.out(`parameters  ${out.parameters}\n`);
      io.out(`backend     ${backendLabel(backend())}\n`);
      io.out(`epochs      ${out.epochs} (${fmt(out.seconds, 3)} s)\n`);
      io.out(`final loss  ${fmt(out.final_loss)}\n`);
      if (out.accuracy !== undefined) io.out(`accuracy    ${fmt(out.accuracy)}${out.test_accuracy !== undefined ? `  (test ${fmt(out.test_accuracy)})` : ''}\n`);
      for (const [k, v] of Object.entries(extra)) io.out(`${k.padEnd(11)} ${String(v)}\n`);
    }
    return 0;
  },
};
