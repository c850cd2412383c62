import { mkdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { builtInDataNames } from '../../data/registry.js';
import { FASHION_MNIST_DIR, idxSplitFiles } from '../../data/node.js';
import type { IdxPair } from '../../data/node.js';
import { sizeOf } from '../../tensor/tensor.js';
import { DataError, quote } from '../../errors.js';
import type { ModelFile } from '../../io/model-file.js';
import { checkWritableSync, replaceFilesSync } from '../../io/node-fs.js';
import type { WriteOptions } from '../../io/node-fs.js';
import { buildPytorchProject } from '../../io/pytorch/project.js';
import type { TorchData } from '../../io/pytorch/project.js';
import type { Shape } from '../../tensor/tensor.js';
import { trainingSplits } from '../../data/splits.js';
import { isTextData, layoutFor, loadData, loadTextData } from '../data.js';

/**
 * The data train.py trains on. Export reads only what its own command line names: `--data`
 * (a built-in set, made again from its name; `text:PATH` or `fortunes`, encoded with the model
 * file's vocabulary; fashion-mnist, read by train.py from `--data-dir`). Without it, what the
 * model file records is used only when reading it touches no file — a built-in set made again
 * from its name and seed, Fashion-MNIST where the Debian package puts it — and otherwise only
 * reported (`recorded`): a model file once named `text:/etc/passwd` and had export copy that
 * file into the project.
 */
async function runData(file: ModelFile, named: { data?: string; dataDir?: string }): Promise<{ data?: TorchData; recorded?: string }> {
  const recorded = typeof file.settings.data === 'string' ? file.settings.data : undefined;
  const name = named.data ?? recorded;
  const seed = typeof file.settings.seed === 'number' ? file.settings.seed : 0;
  if (name === undefined) return {};
  if (builtInDataNames().includes(name)) {
    const valFraction = typeof file.settings.val_fraction === 'number' ? file.settings.val_fraction : undefined;
    const { train, test } = trainingSplits(await loadData(name, { seed, model: file.model }), { seed, valFraction });
    return { data: { rows: { train, test } } };
  }
  if (name === 'fashion-mnist') {
    // train.py reads the IDX files by path: --data-dir's, else the Debian package's (a directory
    // only the model file names is reported, not handed on)
    const recordedDir = typeof file.settings.data_dir === 'string' ? resolve(file.settings.data_dir) : FASHION_MNIST_DIR;
    if (named.dataDir === undefined && recordedDir !== FASHION_MNIST_DIR) return { recorded: `fashion-mnist in ${recordedDir}` };
    return {
      data: {
        idx: {
          dir: resolve(named.dataDir ?? FASHION_MNIST_DIR),
          layout: layoutFor(file.model, 784),
          classes: 10,
          train: ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte'],
          test: ['t10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'],
        },
      },
    };
  }
  if (named.data !== undefined && name.startsWith('idx:') && Array.isArray(file.settings.classes)) {
    // the IDX directory --data names, read by path as fashion-mnist is (its files found again
    // here); one the model file merely records is reported, not listed
    const dir = resolve(name.slice(4));
    const { train, test } = idxSplitFiles(dir, name);
    const names = (p: IdxPair): [string, string] => [basename(p.images).replace(/\.gz$/, ''), basename(p.labels).replace(/\.gz$/, '')];
    const flat = file.model.dom ? sizeOf(file.model.dom) : 0;
    return {
      data: {
        idx: { dir, layout: layoutFor(file.model, flat), classes: file.settings.classes.length, train: names(train), ...(test ? { test: names(test) } : {}) },
      },
    };
  }
  if (named.data !== undefined && isTextData(name)) {
    const vocabulary = typeof file.settings.vocabulary === 'string' ? Array.from(file.settings.vocabulary) : undefined;
    const context = file.settings.context;
    if (!vocabulary || !(typeof context === 'number' && Number.isSafeInteger(context) && context > 0))
      throw new DataError(`export --data ${quote(name)}: the model file records no character vocabulary and context; it was not trained on text`);
    const corpus = loadTextData(name, { context, vocabulary });
    return { data: { text: { name, train: corpus.train, val: corpus.val } } };
  }
  if (named.data !== undefined)
    throw new DataError(
      `export --data ${quote(name)}: export writes built-in sets, text:PATH, fortunes, fashion-mnist and idx:DIR (for a classifier); give train.py --data FILE.safetensors for others`,
    );
  return { recorded: name };
}

/** Creates DIR (its parent must exist) or accepts an existing directory. */
async function ensureDir(dir: string): Promise<void> {
  const st = await stat(dir).catch(() => undefined);
  if (st && !st.isDirectory()) throw new DataError(`cannot write the PyTorch project into ${dir}: it is not a directory`);
  if (!st) {
    await mkdir(dir).catch((e: NodeJS.ErrnoException) => {
      throw new DataError(`cannot create ${dir}: ${e.code === 'ENOENT' ? 'its parent directory does not exist' : (e.code ?? e.message)}`);
    });
  }
}

/**
 * Writes the PyTorch project of a model file into `dir` as a set (replaceFilesSync: every file
 * written in full before any is renamed into place, model.py first); returns what the command
 * reports, `data.recorded` naming the data the model file records when export did not read it.
 */
export async function exportPytorch(
  file: ModelFile,
  dir: string,
  inputShape: Shape | undefined,
  opts: WriteOptions & { data?: string; dataDir?: string } = {},
) {
  const { data, recorded } = await runData(file, opts);
  const project = buildPytorchProject(file.model, file.theta, { inputShape, settings: file.settings, data, preprocessing: file.preprocessing });
  await ensureDir(dir);
  const files = Object.entries(project.files);
  // every file of the project probed before the first is written (writable, regular or absent, room)
  for (const [name, contents] of files)
    checkWritableSync(join(dir, name), { ...opts, bytes: typeof contents === 'string' ? Buffer.byteLength(contents) : contents.length });
  try {
    replaceFilesSync(
      files.map(([name, contents]) => [join(dir, name), contents] as const),
      opts,
    );
  } catch (e) {
    if (e instanceof DataError) throw e;
    throw new DataError(`cannot write the PyTorch project into ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const written = Object.fromEntries(files.map(([name, contents]) => [name, typeof contents === 'string' ? Buffer.byteLength(contents) : contents.length]));
  return {
    out: dir,
    format: 'pytorch',
    model: String(project.model),
    input_shape: ['batch', ...project.model.dom!],
    files: written,
    project: project.stamp,
    parameters: project.stateParams.length,
    buffers: project.stateBuffers,
    data: { ...project.data, ...(recorded !== undefined ? { recorded } : {}) },
    train: `python3 ${join(dir, 'train.py')} --processes 2`,
  };
}
