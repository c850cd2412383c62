import { lossNames } from '../../nn/loss.js';
import { optimizerNames } from '../../optim/by-name.js';
import { parseSpec } from '../../spec/index.js';
import { train } from '../../train/train.js';
import { builtInDataNames } from '../../data/registry.js';
import { UsageError } from '../args.js';
import type { Command } from '../command.js';
import { runtimeFlags } from '../runtime.js';
import { trainingData } from '../data.js';
import { fmt, Progress } from '../progress.js';
import { trainingFlags, trainRunOptions } from '../training.js';
import type { Para } from '../../para/para.js';
import { checkSavePath, loadModel, saveModel } from '../../io/node.js';
import { checkpointHooks } from '../../train/node-checkpoint.js';
import { backendInfo, backendLabel } from '../../tensor/init.js';
import { backend } from '../../tensor/registry.js';

export const command: Command = {
  name: 'train',
  summary: 'train a model given by a spec string on a data set',
  usage: 'paralens train (--model SPEC | --init FILE) --data NAME [--epochs N] [--batch N] [--lr X] [--optimizer NAME] [--loss NAME] [--seed N] [--save FILE] [--checkpoint DIR [--every N]] [--resume DIR]',
  description: `Trains the morphism that SPEC denotes (e.g. 'dense(2,4) >> sigmoid >> dense(4,1)') by iterating the
optimiser's update endomorphism over minibatches. Data sets with 20 rows or more are split 80/20
(stratified, seeded) and test accuracy is reported. Losses: ${lossNames().join(', ')} (bce and
softmax-cross-entropy take logits). Optimisers: ${optimizerNames().join(', ')}.
--init FILE starts from the weights of a model file (train --save, paralens import, PyTorch's
train.py); the model is the file's, and --model, if given, must be the same spec.
Data sets: ${[...builtInDataNames(), 'fashion-mnist'].join(', ')}.`,
  flags: {
    model: { type: 'string', help: 'model spec string' },
    data: { type: 'string', help: 'data set name' },
    ...runtimeFlags,
    ...trainingFlags(),
    'data-dir': { type: 'string', help: 'directory of IDX files for fashion-mnist (default /usr/share/datasets/fashion-mnist)' },
    save: { type: 'string', help: 'write the trained model to this .safetensors file' },
    checkpoint: { type: 'string', help: 'write atomic checkpoints (weights, optimiser and RNG state) into this directory' },
    every: { type: 'int', help: 'with --checkpoint: write one every N epochs (and after the last)', default: 1, range: 'positive' },
    init: { type: 'string', help: 'start from the weights of this model file (its spec is the model; --model must match it)' },
    resume: { type: 'string', help: 'continue from the checkpoint in this directory (same flags; --epochs may grow); keeps checkpointing there' },
  },
  async run(flags, io) {
    if (!flags.model && !flags.init) throw new UsageError('train: --model SPEC is required (or --init FILE), e.g. --model "dense(2,4) >> sigmoid >> dense(4,1)"');
    if (flags.init && flags.resume) throw new UsageError('train: --init and --resume both set the starting weights; give one');
    if (!flags.data) throw new UsageError(`train: --data NAME is required; known: ${[...builtInDataNames(), 'fashion-mnist'].join(', ')}`);
    const json = Boolean(flags.json);
    const seed = flags.seed as number;
    const init = flags.init ? await loadModel(flags.init as string) : undefined;
    const model: Para = init ? init.model : parseSpec(flags.model as string);
    if (init && flags.model && String(parseSpec(flags.model as string)) !== String(parseSpec(String(init.model)))) {
      throw new UsageError(`train: --model ${flags.model} is not the model of --init ${flags.init} (${init.model}); drop --model or give that spec`);
    }
    if (flags.save) await checkSavePath(flags.save as string);
    const { data, train: trainSet, test, split } = await trainingData(flags.data as string, { seed, dataDir: flags['data-dir'] as string | undefined, model });
    const options = trainRunOptions(flags, data);
    const loss = options.loss;
    const progress = new Progress(io, 'train', json);
    const checkpoints = checkpointHooks({
      dir: flags.checkpoint as string | undefined, every: flags.every as number, resume: flags.resume as string | undefined, epochs: flags.epochs as number,
      settings: { spec: String(model), data: data.name, rows: trainSet.x.batch, loss: loss.name, optimizer: flags.optimizer, lr: flags.lr, batch: flags.batch, seed },
    });
    const result = train(model, trainSet, {
      ...options,
      theta: init?.theta,
      ...checkpoints.hooks,
      test,
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
        data_dir: flags['data-dir'],
        init: flags.init,
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
