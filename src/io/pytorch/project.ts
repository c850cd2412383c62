import type { Dataset } from '../../data/dataset.js';
import type { Preprocessing } from '../../data/preprocessing.js';
import { clip, ParalensError } from '../../errors.js';
import { crc32 } from '../../data/npz.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import type { Shape } from '../../tensor/tensor.js';
import { ExportError } from '../errors.js';
import { checkTheta } from '../model-file.js';
import type { TrainingSettings } from '../model-file.js';
import { encodeSafetensors } from '../safetensors.js';
import type { NamedTensor } from '../safetensors.js';
import { modelPy, stateNames } from './model-py.js';
import { torchModule } from './rules.js';
import { trainPy } from './train-py.js';
import type { TorchDataSource } from './train-py.js';

/** The data train.py trains on: the rows themselves (written into the project), or IDX files read by path. */
export type TorchData =
  | { readonly rows: { readonly train: Dataset; readonly test?: Dataset } }
  | { readonly text: { readonly name: string; readonly train: Float32Array; readonly val: Float32Array } }
  | { readonly idx: Omit<Extract<TorchDataSource, { kind: 'idx' }>, 'kind'> };

export interface PytorchExportOptions {
  /** The per-sample input shape, for a morphism that takes any shape. */
  inputShape?: Shape;
  /** The training settings of the paralens run (the model file's `training` metadata). */
  settings?: TrainingSettings;
  data?: TorchData;
  /** The model file's preprocessing: carried into train.py and from it into trained.safetensors. */
  preprocessing?: Preprocessing;
}

/** A generated project: file name → contents (in the order to write them), and what went into it. */
export interface PytorchProject {
  readonly model: Para;
  readonly files: Readonly<Record<string, string | Uint8Array>>;
  /** The stamp model.py and weights.safetensors share (projectStamp). */
  readonly stamp: string;
  /** state_dict names of the trained parameters and of the fixed buffers. */
  readonly stateParams: readonly string[];
  readonly stateBuffers: readonly string[];
  readonly data: TorchDataSource;
}

const DATA_FILE = 'data.safetensors';

/**
 * What train.py takes from the recorded settings, and the type each must have: a model file is
 * received, so a setting of another type (`"epochs": "1e9"`, a list, an object) is refused here
 * with the key named (exit 2) rather than reaching argparse or the training loop. Other keys
 * are carried through to the model file train.py writes, as data.
 */
const SETTING_TYPES: Readonly<Record<string, [string, (v: unknown) => boolean]>> = {
  epochs: ['a positive integer', (v) => Number.isSafeInteger(v) && (v as number) > 0],
  steps: ['a positive integer', (v) => Number.isSafeInteger(v) && (v as number) > 0],
  context: ['a positive integer', (v) => Number.isSafeInteger(v) && (v as number) > 0],
  batch: ['a non-negative integer', (v) => Number.isSafeInteger(v) && (v as number) >= 0],
  seed: ['a non-negative integer', (v) => Number.isSafeInteger(v) && (v as number) >= 0],
  lr: ['a positive finite number', (v) => typeof v === 'number' && Number.isFinite(v) && v > 0],
  optimizer: ['a name', (v) => typeof v === 'string' && /^[a-z-]{1,32}$/.test(v)],
  loss: [
    'one of mse, bce, softmax-cross-entropy, token-cross-entropy',
    (v) => ['mse', 'bce', 'softmax-cross-entropy', 'token-cross-entropy'].includes(v as string),
  ],
  schedule: ['a schedule name', (v) => typeof v === 'string' && /^[a-z0-9:.]{1,64}$/.test(v)],
};

/** The settings with every key train.py reads checked for its type (ExportError naming the first that is not). */
export function checkedSettings(settings: TrainingSettings): TrainingSettings {
  for (const [key, [what, ok]] of Object.entries(SETTING_TYPES)) {
    const v = settings[key];
    if (v !== undefined && v !== null && !ok(v))
      throw new ExportError(`the model file's training settings give ${key} = ${clip(JSON.stringify(v), 60)}, not ${what}; train.py reads it`);
  }
  return settings;
}

/**
 * A stamp of the exported weights (CRC-32 of weights.safetensors without it): model.py and the
 * weights file both carry it, and model.py's load() refuses weights of another export — so a
 * project that an interrupted export left half old and half new cannot load one model's
 * weights into the other silently.
 */
function projectStamp(weights: Uint8Array): string {
  return crc32(weights).toString(16).padStart(8, '0');
}

/** The morphism at its input shape (refusing one that takes any shape when none is given). */
function fixed(model: Para, inputShape: Shape | undefined): Para {
  if (model.dom) return model;
  if (!inputShape)
    throw new ExportError(`cannot export ${model} to PyTorch: it takes inputs of any shape; give the per-sample input shape (--input-shape, e.g. 1,28,28)`);
  try {
    return model.at(inputShape);
  } catch (e) {
    if (!(e instanceof ParalensError)) throw e;
    throw new ExportError(`cannot export ${model} to PyTorch at input shape [${inputShape.join(',')}]: ${e.message}`);
  }
}

/**
 * model.py, weights.safetensors (the parameters under the module's state_dict names, with
 * the fixed bases) and train.py for a morphism with parameters θ; with rows of data, also
 * data.safetensors. Throws an ExportError naming every layer that has no PyTorch rule.
 */
export function buildPytorchProject(model: Para, theta: readonly Tensor[], opts: PytorchExportOptions = {}): PytorchProject {
  const m = fixed(model, opts.inputShape);
  checkTheta(m, theta);
  const t = torchModule(m);
  const names = stateNames(m, t);
  const weights: NamedTensor[] = [
    ...names.params.map((name, i) => ({ name, tensor: theta[i]! })),
    ...names.buffers.map((name, i) => ({ name, tensor: t.buffers[i]!.tensor })),
  ];
  const byState = new Map(weights.map((w) => [w.name, w.tensor]));
  weights.push(...names.aliases.map((a) => ({ name: a.name, tensor: byState.get(a.of)! })));
  const stamp = projectStamp(encodeSafetensors(weights, { spec: String(m) }));
  // model.py first: the order the files are renamed into place (exportPytorch), so the load()
  // that checks the stamp is in place before any weights it could be mixed with
  const files: Record<string, string | Uint8Array> = {
    'model.py': modelPy(m, t, stamp),
    'weights.safetensors': encodeSafetensors(weights, { spec: String(m), project: stamp }),
  };
  let source: TorchDataSource = { kind: 'none' };
  const d = opts.data;
  if (d && 'rows' in d) {
    const rows: NamedTensor[] = [
      { name: 'x_train', tensor: d.rows.train.x },
      { name: 'y_train', tensor: d.rows.train.y },
    ];
    if (d.rows.test) rows.push({ name: 'x_test', tensor: d.rows.test.x }, { name: 'y_test', tensor: d.rows.test.y });
    files[DATA_FILE] = encodeSafetensors(rows, { data: d.rows.train.name });
    source = { kind: 'file', path: DATA_FILE };
  } else if (d && 'text' in d) {
    // the character ids of the training and validation text, as paralens encoded them
    files[DATA_FILE] = encodeSafetensors(
      [
        { name: 'text_train', tensor: new Tensor(d.text.train, [d.text.train.length]) },
        { name: 'text_val', tensor: new Tensor(d.text.val, [d.text.val.length]) },
      ],
      { data: d.text.name },
    );
    source = { kind: 'text', path: DATA_FILE };
  } else if (d) {
    source = { kind: 'idx', ...d.idx };
  }
  files['train.py'] = trainPy(checkedSettings(opts.settings ?? {}), source, opts.preprocessing);
  return { model: m, files, stamp, stateParams: names.params, stateBuffers: names.buffers, data: source };
}
