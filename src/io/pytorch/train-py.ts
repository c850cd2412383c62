import type { Preprocessing } from '../../data/preprocessing.js';
import { VERSION } from '../../version.js';
import { pyLiteral } from './model-py.js';
import { pythonFile } from './node-python.js';
import { assign, substitute } from './python-template.js';

/**
 * Where train.py finds the data of the paralens run: `file` a safetensors file in the
 * project (x_train, y_train, x_test, y_test: the very rows paralens trained and tested on),
 * `idx` a directory of IDX files read by path (Fashion-MNIST's layout: grey levels / 255,
 * one-hot labels), `none` when the model file records no data (then --data FILE is needed).
 */
export type TorchDataSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'text'; readonly path: string }
  | {
      readonly kind: 'idx';
      readonly dir: string;
      readonly layout: 'flat' | 'image';
      readonly classes: number;
      /** The training split's image and label file names in `dir` (`.gz` found either way), and the test split's. */
      readonly train: readonly [string, string];
      readonly test?: readonly [string, string];
    }
  | { readonly kind: 'none' };

/**
 * The source of train.py: python/train.py with the run's settings and data source filled in.
 * It has the loss, optimiser (PyTorch's SGD/Adam/AdamW with paralens's defaults, which are
 * PyTorch's: src/optim/optimizer.ts), learning-rate schedule (src/optim/schedule.ts) and data
 * of the paralens run, on one process or as DistributedDataParallel over N. Each global
 * minibatch is split across the processes and every process divides its summed loss by the
 * global batch's size, so N processes take the same steps as one (up to the order of float
 * additions). Text data trains next-character prediction as src/train/language-model.ts
 * does: each step takes --batch windows of --context characters at seeded random starts (the
 * same starts on every process, each taking its share), and the validation bits per
 * character are measured over the windows of src/data/text.ts, as `paralens eval` measures them.
 */
export function trainPy(settings: Record<string, unknown>, data: TorchDataSource, preprocessing?: Preprocessing): string {
  let py = substitute(pythonFile('train.py'), { version: VERSION });
  py = assign(py, 'SETTINGS', pyLiteral(settings));
  // the model file's preprocessing: train.py maps IDX pixels by it and writes it into trained.safetensors
  py = assign(py, 'PREPROCESSING', preprocessing ? pyLiteral(preprocessing as unknown as Record<string, unknown>) : 'None');
  return assign(py, 'DATA', pyLiteral(data));
}
