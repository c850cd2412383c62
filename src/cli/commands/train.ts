import { lossNames } from '../../nn/loss.js';
import { optimizerNames } from '../../optim/by-name.js';
import { parseSpec } from '../../catalogue/index.js';
import { trainAsync } from '../../train/train.js';
import type { Task } from '../../data/task.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { dataFlags, dataForms, loadData } from '../data.js';
import { fmt, isSilent, trainingProgress } from '../progress.js';
import { trainingSplits } from '../splits.js';
import { recurrentOptions, trainingFlags, trainRunOptions } from '../training.js';
import type { Para } from '../../para/para.js';
import { loadModel, saveModel } from '../../io/node.js';
import { checkWritableSync } from '../../io/node-fs.js';
import { sizeOf } from '../../tensor/tensor.js';
import { checkpointHooks } from '../../train/node-checkpoint.js';
import { backendInfo } from '../../tensor/init.js';
import { backend } from '../../tensor/registry.js';
import { isTextData, TEXT_DATA } from '../text-data.js';
import { trainOnText } from '../train-text.js';

const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2) : NaN;
};

export const command: Command = {
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
  flags: {
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
  },
  async run(flags, io) {
    if (!flags.model && !flags.init)
      throw new UsageError('train: --model SPEC is required (or --init FILE), e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');
    if (flags.init && flags.resume) throw new UsageError('train: --init and --resume both set the starting weights; give one');
    if (!flags.data) throw new UsageError(`train: --data NAME is required (${dataForms()}; ${TEXT_DATA.join('; ')})`);
    if (backend().device && (flags.checkpoint || flags.resume))
      throw new UsageError(
        `train: --checkpoint and --resume need host parameters every epoch; --backend ${backend().name} keeps them on the device (use --backend wasm)`,
      );
    if (isTextData(flags.data as string)) return trainOnText(flags, io);
    const json = Boolean(flags.json);
    const seed = flags.seed as number;
    const init = flags.init ? await loadModel(flags.init as string) : undefined;
    const model: Para = init ? init.model : parseSpec(flags.model as string);
    if (init && flags.model && String(parseSpec(flags.model as string)) !== String(parseSpec(String(init.model)))) {
      throw new UsageError(`train: --model ${flags.model} is not the model of --init ${flags.init} (${init.model}); drop --model or give that spec`);
    }
    // room for θ and the header, before any data is read or any epoch run
    if (flags.save)
      checkWritableSync(flags.save as string, { force: Boolean(flags.force), bytes: 4 * model.params.reduce((n, p) => n + sizeOf(p.shape), 0) + 65536 });
    const loaded = await loadData(flags.data as string, {
      seed,
      dataDir: flags['data-dir'] as string | undefined,
      model,
      target: flags.target as string | undefined,
      task: flags.task as Task | undefined,
    });
    if (loaded.data.y === loaded.data.x)
      throw new UsageError(`train: ${loaded.data.name} has no target to learn; give --target Y.npy, or an .npz with arrays x and y`);
    const { train: trainSet, validation, test, preprocessing } = trainingSplits(loaded, { seed, valFraction: flags['val-fraction'] as number | undefined });
    const options = trainRunOptions(flags, trainSet);
    const loss = options.loss!;
    const name = loaded.data.name;
    const progress = trainingProgress(io, isSilent(flags));
    const optional = {
      ...(flags.schedule !== 'constant' ? { schedule: flags.schedule } : {}),
      ...(validation ? { val_fraction: flags['val-fraction'] } : {}),
      ...recurrentOptions(flags),
    };
    const checkpoints = checkpointHooks({
      dir: flags.checkpoint as string | undefined,
      every: (flags.every as number | undefined) ?? 1,
      resume: flags.resume as string | undefined,
      epochs: flags.epochs as number,
      steps: flags.steps as number | undefined,
      settings: {
        spec: String(model),
        data: name,
        rows: trainSet.x.batch,
        loss: loss.name,
        optimizer: flags.optimizer,
        lr: flags.lr,
        batch: flags.batch,
        seed,
        ...optional,
      },
    });
    // on a device backend the run stays on the device (DeviceTrainer); elsewhere it is `train`
    let result: Awaited<ReturnType<typeof trainAsync>>;
    try {
      result = await trainAsync(model, trainSet, {
        ...options,
        theta: init?.theta,
        steps: flags.steps as number | undefined,
        ...checkpoints.hooks,
        test,
        validation,
        evalEvery: Math.max(1, Math.floor((flags.epochs as number) / 20)),
        onEvent: progress.onEvent,
      });
    } finally {
      checkpoints.release(); // the directory's lock, for the next run (in this process too)
    }
    progress.done();
    const target = preprocessing?.target;
    const extra: Record<string, unknown> = checkpoints.summary();
    if (flags.save) {
      const settings = {
        data: name,
        ...(target ? { target: target.name, task: target.task } : {}),
        loss: loss.name,
        optimizer: flags.optimizer,
        epochs: result.epochs,
        batch: flags.batch,
        lr: flags.lr,
        seed,
        ...optional,
        final_loss: result.finalLoss,
        accuracy: result.accuracy,
        validation_accuracy: result.validationAccuracy,
        test_accuracy: result.testAccuracy,
        classes: trainSet.classes,
        feature_names: trainSet.featureNames,
        data_dir: flags['data-dir'],
        init: flags.init,
      };
      const bytes = await saveModel(flags.save as string, result.model, result.theta, settings, { preprocessing }, { force: Boolean(flags.force) });
      extra.saved = flags.save;
      extra.file_bytes = bytes;
    }
    const history = validation
      ? result.history
          .filter((h) => h.validationLoss !== undefined)
          .map((h) => ({ epoch: h.epoch, loss: h.loss, accuracy: h.accuracy, val_loss: h.validationLoss, val_accuracy: h.validationAccuracy }))
      : undefined;
    const out = {
      model: String(result.model),
      data: name,
      ...(target ? { target: target.name, task: target.task } : {}),
      rows: { train: trainSet.x.batch, ...(validation ? { validation: validation.x.batch } : {}), ...(test ? { test: test.x.batch } : {}) },
      loss: loss.name,
      optimizer: flags.optimizer,
      ...optional,
      final_loss: result.finalLoss,
      accuracy: result.accuracy,
      val_loss: result.validationLoss,
      val_accuracy: result.validationAccuracy,
      test_loss: result.testLoss,
      test_accuracy: result.testAccuracy,
      epochs: result.epochs,
      seconds: result.seconds,
      // training alone, without the evaluations: the figure to set beside a benchmark's epoch
      seconds_per_epoch: median(result.history.map((h) => h.seconds)),
      parameters: result.parameters,
      backend: backendInfo(backend()),
      ...(history ? { history } : {}),
      ...extra,
    };
    if (json) {
      io.out(JSON.stringify(out) + '\n');
      return 0;
    }
    const rows = [
      `${trainSet.x.batch} training rows`,
      ...(validation ? [`${validation.x.batch} validation rows`] : []),
      ...(test ? [`${test.x.batch} test rows`] : []),
    ].join(', ');
    const what =
      target?.task === 'classify'
        ? `; classify ${target.name ?? 'y'}: ${target.classes.length} classes`
        : target?.task === 'regress'
          ? `; regress ${target.name ?? 'y'} (standardised)`
          : '';
    io.out(`model       ${out.model}\n`);
    io.out(`data        ${name} (${rows}${what})\n`);
    io.out(`parameters  ${out.parameters}\n`);
    io.out(`epochs      ${out.epochs} (${fmt(out.seconds, 3)} s)\n`);
    io.out(
      `final loss  ${fmt(out.final_loss)}${out.val_loss !== undefined ? `  (validation ${fmt(out.val_loss)})` : ''}${out.test_loss !== undefined && out.accuracy === undefined ? `  (test ${fmt(out.test_loss)})` : ''}\n`,
    );
    if (out.accuracy !== undefined) {
      const also = [
        ...(out.val_accuracy !== undefined ? [`validation ${fmt(out.val_accuracy)}`] : []),
        ...(out.test_accuracy !== undefined ? [`test ${fmt(out.test_accuracy)}`] : []),
      ];
      io.out(`accuracy    ${fmt(out.accuracy)}${also.length ? `  (${also.join(', ')})` : ''}\n`);
    }
    for (const [k, v] of Object.entries(extra)) io.out(`${k.padEnd(11)} ${String(v)}\n`);
    return 0;
  },
};
