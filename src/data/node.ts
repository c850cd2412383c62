/**
 * Node-only data loading (reads files, gunzips with node:zlib). Not exported from
 * src/index.ts: import it from 'paralens/dist/src/data/node.js' or use the CLI.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { DataError, formatBytes, TooLargeError } from '../errors.js';
import type { Dataset } from './dataset.js';
import { FASHION_MNIST_CLASSES, idxDataset, idxDeclaredBytes, isGzip, parseIdx } from './idx.js';
import type { IdxArray, ImageLayout } from './idx.js';

/** Where the Debian package `dataset-fashion-mnist` puts the files. */
export const FASHION_MNIST_DIR = '/usr/share/datasets/fashion-mnist';

/** Reads an IDX file, gunzipping it when it starts with the gzip magic. */
export function readIdxFile(path: string): IdxArray {
  let bytes: Uint8Array;
  try {
    const size = statSync(path).size;
    if (size > MAX_INFLATED_BYTES) throw new TooLargeError(`${path}: ${formatBytes(size)}; an IDX file may have at most ${formatBytes(MAX_INFLATED_BYTES)}`, { bytes: size });
    bytes = readFileSync(path);
  } catch (e) {
    if (e instanceof TooLargeError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new DataError(`cannot read ${path}: ${code === 'EISDIR' ? 'it is a directory' : (code ?? (e as Error).message)}`);
  }
  return parseIdx(isGzip(bytes) ? gunzipIdx(bytes, path) : bytes, path);
}

/** The most bytes an IDX file may hold, as read or as inflated (Fashion-MNIST's largest is 47 MB). */
const MAX_INFLATED_BYTES = 2 ** 28;

/**
 * Gunzips an IDX file without trusting it: the header is read from the inflated start of the
 * file (4 KiB of input inflate to at most ~4 MiB), checked against the limits, and the whole
 * file is then inflated with its output capped at the size the header declares — a gzip bomb
 * stops there, not gigabytes later.
 */
function gunzipIdx(bytes: Uint8Array, path: string): Uint8Array {
  const cannot = (e: unknown): never => {
    throw new DataError(`${path}: cannot gunzip: ${(e as Error).message} (truncated or corrupt .gz file?)`);
  };
  let declared: number | undefined;
  try {
    declared = idxDeclaredBytes(gunzipSync(bytes.subarray(0, 4096), { finishFlush: constants.Z_SYNC_FLUSH }), path);
  } catch (e) {
    if (e instanceof DataError) throw e;
    cannot(e);
  }
  if (declared !== undefined && declared > MAX_INFLATED_BYTES) {
    throw new TooLargeError(`${path}: its IDX header declares ${formatBytes(declared)}; a compressed IDX file may inflate to at most ${formatBytes(MAX_INFLATED_BYTES)}`, { bytes: declared });
  }
  const cap = declared ?? MAX_INFLATED_BYTES;
  try {
    return gunzipSync(bytes, { maxOutputLength: Math.max(cap, 1) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') cannot(e);
    throw new DataError(`${path}: inflates to more than ${cap} bytes, ${declared === undefined ? 'the limit' : 'the size its IDX header declares'}; the file is corrupt or a decompression bomb`);
  }
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
