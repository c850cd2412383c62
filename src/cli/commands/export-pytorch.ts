import { mkdir, stat } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { builtInDataNames } from '../../data/registry.js';
import { FASHION_MNIST_DIR, idxSplitFiles } from '../../data/node.js';
import type { IdxPair } from '../../data/node.js';
import { sizeOf } from '../../tensor/tensor.js';
import { DataError } from '../../errors.js';
import type { ModelFile } from '../../io/model-file.js';
import { checkWritableSync, writeFileAtomic } from '../../io/node-fs.js';
import type { WriteOptions } from '../../io/node-fs.js';
import { buildPytorchProject } from '../../io/pytorch/project.js';
import type { TorchData } from '../../io/pytorch/project.js';
import type { Shape } from '../../tensor/tensor.js';
import { trainingSplits } from '../../data/splits.js';
import { isTextData, layoutFor, loadData, loadTextData } from '../data.js';

/**
 * The data of the run a model file records, for train.py: the built-in sets are made again
 * from their name and seed (the same rows as the paralens run, split the same way) and
 * written into the project, so PyTorch trains on those bits; Fashion-MNIST is read by path
 * (60 000 images need not be copied); anything else is left to train.py --data.
 */
async function runData(file: ModelFile): Promise<TorchData | undefined> {
  const name = file.settings.data;
  const seed = typeof file.settings.seed === 'number' ? file.settings.seed : 0;
  if (typeof name !== 'string') return undefined;
  if (isTextData(name) && typeof file.settings.vocabulary === 'string' && typeof file.settings.context === 'number') {
    const corpus = loadTextData(name, { context: file.settings.context, vocabulary: Array.from(file.settings.vocabulary) });
    return { text: { name, train: corpus.train, val: corpus.val } };
  }
  if (name === 'fashion-mnist') {
    const dir = typeof file.settings.data_dir === 'string' ? file.settings.data_dir : FASHION_MNIST_DIR;
    return {
      idx: {
        dir: resolve(dir),
        layout: layoutFor(file.model, 784),
        classes: 10,
        train: ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte'],
        test: ['t10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte'],
      },
    };
  }
  if (name.startsWith('idx:') && Array.isArray(file.settings.classes)) {
    // the IDX directory trained on, read by path as fashion-mnist is (its files found again here)
    const dir = resolve(name.slice(4));
    const { train, test } = idxSplitFiles(dir, name);
    const names = (p: IdxPair): [string, string] => [basename(p.images).replace(/\.gz$/, ''), basename(p.labels).replace(/\.gz$/, '')];
    const flat = file.model.dom ? sizeOf(file.model.dom) : 0;
    return {
      idx: { dir, layout: layoutFor(file.model, flat), classes: file.settings.classes.length, train: names(train), ...(test ? { test: names(test) } : {}) },
    };
  }
  if (!builtInDataNames().includes(name)) return undefined;
  const valFraction = typeof file.settings.val_fraction === 'number' ? file.settings.val_fraction : undefined;
  const { train, test } = trainingSplits(await loadData(name, { seed, model: file.model }), { seed, valFraction });
  return { rows: { train, test } };
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

/** Writes the PyTorch project of a model file into `dir`; returns what the command reports. */
export async function exportPytorch(file: ModelFile, dir: string, inputShape: Shape | undefined, opts: WriteOptions = {}) {
  const data = await runData(file);
  const project = buildPytorchProject(file.model, file.theta, { inputShape, settings: file.settings, data, preprocessing: file.preprocessing });
  await ensureDir(dir);
  const files = Object.entries(project.files);
  // every file of the project probed before the first is written (writable, regular or absent, room)
  for (const [name, contents] of files)
    checkWritableSync(join(dir, name), { ...opts, bytes: typeof contents === 'string' ? Buffer.byteLength(contents) : contents.length });
  const written: Record<string, number> = {};
  for (const [name, contents] of files) {
    await writeFileAtomic(join(dir, name), contents, opts);
    written[name] = typeof contents === 'string' ? Buffer.byteLength(contents) : contents.length;
  }
  return {
    out: dir,
    format: 'pytorch',
    model: String(project.model),
    input_shape: ['batch', ...project.model.dom!],
    files: written,
    parameters: project.stateParams.length,
    buffers: project.stateBuffers,
    data: project.data,
    train: `python3 ${join(dir, 'train.py')} --processes 2`,
  };
}
