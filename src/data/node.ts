/**
 * Node-only data loading (reads files, gunzips with node:zlib). Not exported from
 * src/index.ts: import it from 'paralens/dist/src/data/node.js' or use the CLI.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DataError } from '../errors.js';
import type { Dataset } from './dataset.js';
import { FASHION_MNIST_CLASSES, idxDataset, isGzip, parseIdx } from './idx.js';
import type { IdxArray, ImageLayout } from './idx.js';

/** Where the Debian package `dataset-fashion-mnist` puts the files. */
export const FASHION_MNIST_DIR = '/usr/share/datasets/fashion-mnist';

/** Reads an IDX file, gunzipping it when it starts with the gzip magic. */
function readIdxFile(path: string): IdxArray {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DataError(`cannot read ${path}: ${code === 'EISDIR' ? 'it is a directory' : (code ?? (e as Error).message)}`);
  }
  if (isGzip(bytes)) {
    try {
      bytes = gunzipSync(bytes);
    } catch (e) {
      throw new DataError(`${path}: cannot gunzip: ${(e as Error).message} (truncated or corrupt .gz file?)`);
    }
  }
  return parseIdx(bytes, path);
}

/** `dir/name.gz` if it exists, else `dir/name`; a DataError naming the package and --data-dir when neither does. */
function findIdx(dir: string, name: string): string {
  for (const p of [join(dir, `${name}.gz`), join(dir, name)]) if (existsSync(p)) return p;
  const where = dir === FASHION_MNIST_DIR ? 'install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist)' : 'check the directory, or install the Debian package dataset-fashion-mnist';
  throw new DataError(`fashion-mnist: ${join(dir, name)}(.gz) not found: ${where}, or point --data-dir at a directory holding {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]`);
}

export interface FashionMnistOptions {
  /** Directory of the four IDX files (default /usr/share/datasets/fashion-mnist). */
  dataDir?: string;
  /** Keep only the first `limit` rows of each split. */
  limit?: number;
  /** 'flat' (default): x [N,784]; 'image': x [N,1,28,28] for convolutional models. */
  layout?: ImageLayout;
}

/**
 * Fashion-MNIST (Xiao, Rasul & Vollgraf 2017): 60 000 training and 10 000 test images of
 * 28×28 grey levels scaled to [0,1], one-hot targets over ten clothing classes.
 */
export function loadFashionMnist(opts: FashionMnistOptions = {}): { train: Dataset; test: Dataset } {
  const dir = opts.dataDir ?? FASHION_MNIST_DIR;
  const split = (prefix: string, name: string): Dataset => {
    const images = readIdxFile(findIdx(dir, `${prefix}-images-idx3-ubyte`));
    const labels = readIdxFile(findIdx(dir, `${prefix}-labels-idx1-ubyte`));
    return idxDataset(images, labels, { name, classes: FASHION_MNIST_CLASSES, layout: opts.layout, limit: opts.limit });
  };
  return { train: split('train', 'fashion-mnist'), test: split('t10k', 'fashion-mnist/test') };
}
