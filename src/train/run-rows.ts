import { trainingSplits } from '../data/splits.js';
import type { LoadedData } from '../data/splits.js';
import { describeScaling } from '../data/arrays.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { namedSchedule, recurrentSettings, trainOptions } from './run.js';
import type { RowsRecord, RunSettings, TrainingRun } from './run.js';
import { trainedPart } from './model-ends.js';
import { trainAsync } from './train.js';

/** Where a rows run starts from and what its record names besides its settings. */
export interface RowsRunOptions {
  /** Starting weights (a model file's: the CLI's --init), instead of a seeded initialisation. */
  theta?: Tensor[];
  /** Recorded in the model file: the model file the weights came from. */
  init?: string;
  /** Recorded in the model file: where the data set's files were read (fashion-mnist's --data-dir). */
  dataDir?: string;
  /** The --scale asked for (the run then says how it scaled the inputs). */
  scale?: string;
  /** The output link a model file declares (an ONNX import's `onnx_output_link`), checked against the model's last layer. */
  declaredLink?: string;
}

/**
 * A run on rows: the data split (data/splits.ts: the source's test split or a stratified 20 %,
 * then `valFraction` for validation; the preprocessing fitted on the training rows), the loss,
 * optimiser and schedule from the settings (train/run.ts trainOptions), and train's
 * evaluations on the held-out rows twenty times a run.
 */
export function rowsRun(model: Para, loaded: LoadedData, settings: RunSettings, opts: RowsRunOptions = {}): TrainingRun {
  const splits = trainingSplits(loaded, { seed: settings.seed, valFraction: settings.valFraction });
  const { train, validation, test, preprocessing } = splits;
  const options = trainOptions(settings, train);
  const target = preprocessing?.target;
  const schedule = namedSchedule(settings);
  const { part, rejoin, notes } = trainedPart(model, options.loss!.name, opts.declaredLink);
  const scaling = preprocessing?.input === 'array' ? describeScaling(preprocessing) : undefined;
  const why = loaded.scalingNote ?? (opts.scale === 'unit' && preprocessing?.input === 'array' && preprocessing.scale === 1 ? 'already in [0,1]' : undefined);
  if (scaling && (opts.scale !== undefined || why)) notes.push(`inputs scaled: ${scaling}${why ? `; ${why}` : ''}`);
  // the run's record, built once: the model file keeps it with the results, a checkpoint the
  // part a resumed run must repeat (not the epochs, which may grow; the rows besides)
  const record: RowsRecord = {
    data: loaded.data.name,
    ...(target ? { target: target.name, task: target.task } : {}),
    loss: options.loss!.name,
    optimizer: settings.optimizer,
    epochs: settings.epochs,
    batch: settings.batch,
    lr: settings.lr,
    seed: settings.seed,
    ...(schedule !== undefined ? { schedule } : {}),
    ...(validation ? { val_fraction: settings.valFraction } : {}),
    ...recurrentSettings(settings),
  };
  const { target: _target, task: _task, epochs: _epochs, ...repeated } = record;
  return {
    model,
    identity: { spec: String(model), rows: train.x.batch, ...repeated },
    length: { unit: 'epoch', every: 1, epochs: settings.epochs, steps: settings.steps },
    async train(hooks) {
      // on a device backend the run stays on the device (DeviceTrainer); elsewhere it is `train`
      const trained = await trainAsync(part, train, {
        ...options,
        theta: opts.theta,
        steps: settings.steps,
        onStart: hooks.onStart,
        afterEpoch: hooks.afterEpoch,
        test,
        validation,
        evalEvery: Math.max(1, Math.floor(settings.epochs / 20)),
        onEvent: hooks.onEvent,
      });
      const result = { ...trained, model: rejoin(trained.model) };
      const fileSettings = {
        ...record,
        epochs: result.epochs,
        final_loss: result.finalLoss,
        accuracy: result.accuracy,
        validation_accuracy: result.validationAccuracy,
        test_accuracy: result.testAccuracy,
        classes: train.classes,
        feature_names: train.featureNames,
        data_dir: opts.dataDir,
        init: opts.init,
      };
      return {
        kind: 'rows',
        record,
        splits,
        result,
        model: result.model,
        theta: result.theta,
        fileSettings,
        preprocessing,
        notes,
        ...(scaling ? { scaling } : {}),
      };
    },
  };
}
