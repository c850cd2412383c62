import { writeFileAtomic } from './node-fs.js';
import type { WriteOptions } from './node-fs.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';
import { withRegularFile } from '../data/node-file.js';
import { FileFormatError } from './errors.js';
import { encodeModel, modelOfHeader, thetaOfData } from './model-file.js';
import type { ModelExtras, ModelFile, TrainingSettings } from './model-file.js';
import { parseHeader, readHeaderLength } from './safetensors.js';

/**
 * Model files on disk (Node only; not exported from the package root — the browser
 * works on bytes with `encodeModel` / `decodeModel`), and the PyTorch export, whose fixed
 * Python is read from the .py files of src/io/pytorch/python/.
 */
export { buildPytorchProject } from './pytorch/project.js';
export type { PytorchExportOptions, PytorchProject, TorchData } from './pytorch/project.js';
export { defineTorchRules, torchKinds } from './pytorch/rules.js';
export type { TorchModule, TorchRule, TorchRuleSet } from './pytorch/torch-module.js';

/**
 * Saves a model atomically: the bytes are built (and the spec checked) first, then written
 * to a temporary file beside `path` and renamed over it. If anything fails, an existing
 * file at `path` is left as it was. Returns the number of bytes written.
 */
export async function saveModel(
  path: string,
  model: Para,
  theta: readonly Tensor[],
  settings: TrainingSettings = {},
  extras: ModelExtras = {},
  opts: WriteOptions = {},
): Promise<number> {
  const bytes = encodeModel(model, theta, settings, extras);
  await writeFileAtomic(path, bytes, opts);
  return bytes.length;
}

/**
 * Loads a model file. Reads the 8-byte length, then the header, validates both against
 * the file size and the spec, and only then reads the data section: a corrupt file is
 * refused before anything large is allocated.
 */
export async function loadModel(path: string, opts: { model?: Para } = {}): Promise<ModelFile> {
  // a FIFO, a device or a directory is refused before it is opened (openRegularFile)
  return withRegularFile(path, `model file ${path}`, (f) => {
    try {
      const n = readHeaderLength(f.read(0, Math.min(8, f.size)), f.size);
      const header = parseHeader(f.read(8, n), 8 + n, f.size - 8 - n);
      const { model, settings, preprocessing } = modelOfHeader(header, opts.model);
      const theta = thetaOfData(header, model, f.read(header.dataStart, header.dataLength));
      return { model, theta, metadata: { ...header.metadata }, settings, ...(preprocessing ? { preprocessing } : {}) };
    } catch (e) {
      if (e instanceof FileFormatError) throw new FileFormatError(`${path}: ${e.message}`);
      throw e;
    }
  });
}

// types the exported names use (so the API reference documents them)
export type { WriteOptions } from './node-fs.js';
export type { TorchDataSource } from './pytorch/train-py.js';
export type { TorchAlias, TorchBuffer, TorchRuleInput } from './pytorch/torch-module.js';
