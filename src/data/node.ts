/**
 * Node-only data loading (reads files, gunzips and inflates with node:zlib). Not exported from
 * src/index.ts: import it from 'paralens/dist/src/data/node.js' or use the CLI. Every reader
 * checks a file's size before reading it and bounds what decompression may produce.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gunzipSync, inflateRawSync } from 'node:zlib';
import { DataError, formatBytes, TooLargeError } from '../errors.js';
import type { Dataset } from './dataset.js';
import { FASHION_MNIST_CLASSES, idxArrays, idxDeclaredBytes, isGzip, parseIdx } from './idx.js';
import type { IdxArray } from './idx.js';
import { withImageLayout } from './arrays.js';
import type { ArrayScale, ImageLayout } from './arrays.js';
import { NPY_MAX_HEADER, npySizeError, parseNpy, parseNpyHeader } from './npy.js';
import type { NdArray } from './npy.js';
import { parseNpz } from './npz.js';
import { applyPreprocessing } from './preprocessing.js';
import type { Preprocessing } from './preprocessing.js';
import { decodeTableText, readTable, scanTableBytes } from './table.js';
import { readRegularFile, withRegularFile } from './node-file.js';
import { inflateCap, inflateRefusal } from './inflate.js';
import type { ReadTableOptions, Table } from './table.js';

/** Where the Debian package `dataset-fashion-mnist` puts the files. */
export const FASHION_MNIST_DIR = '/usr/share/datasets/fashion-mnist';

/** Text tables larger than this (after gunzip) are refused: they are read into one string. */
const MAX_TABLE_BYTES = 256 * 2 ** 20;

/** Gunzips when the bytes start with the gzip magic, producing at most `max` bytes (and at most inflateCap of them). */
function maybeGunzip(bytes: Uint8Array, path: string, max: number): Uint8Array {
  if (!isGzip(bytes)) return bytes;
  const cap = inflateCap(bytes.length, max);
  try {
    return gunzipSync(bytes, { maxOutputLength: cap });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw inflateRefusal(path, bytes.length, cap, max);
    throw new DataError(`${path}: cannot gunzip: ${(e as Error).message} (truncated or corrupt .gz file)`);
  }
}

/** Reads an IDX file, gunzipping it when it starts with the gzip magic. */
export function readIdxFile(path: string): IdxArray {
  const bytes = readRegularFile(path, MAX_INFLATED_BYTES);
  return parseIdx(isGzip(bytes) ? gunzipIdx(bytes, path) : bytes, path);
}

/** The most bytes an IDX file may hold, as read or as inflated (Fashion-MNIST's largest is 47 MB). */
const MAX_INFLATED_BYTES = 2 ** 28;

/**
 * Gunzips an IDX file without trusting it: the header is read from the inflated start of the
 * file (4 KiB of input inflate to at most ~4 MiB), checked against the limits, and the whole
 * file is then inflated with its output capped at the size the header declares and at the
 * ratio rule (inflateCap) — a gzip bomb stops there, not gigabytes later.
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
    throw new TooLargeError(
      `${path}: its IDX header declares ${formatBytes(declared)}; a compressed IDX file may inflate to at most ${formatBytes(MAX_INFLATED_BYTES)}`,
      { bytes: declared },
    );
  }
  const ratioCap = inflateCap(bytes.length, MAX_INFLATED_BYTES);
  if (declared !== undefined && declared > ratioCap) throw inflateRefusal(path, bytes.length, ratioCap, MAX_INFLATED_BYTES);
  const cap = Math.min(declared ?? MAX_INFLATED_BYTES, ratioCap);
  try {
    return gunzipSync(bytes, { maxOutputLength: Math.max(cap, 1) });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') cannot(e);
    if (declared === undefined || declared > cap) throw inflateRefusal(path, bytes.length, cap, MAX_INFLATED_BYTES);
    throw new DataError(`${path}: inflates to more than ${cap} bytes, the size its IDX header declares; the file is corrupt or a decompression bomb`);
  }
}

/**
 * Reads a delimited text file (CSV, TSV, …; gzipped too) into a Table (readTable): its bytes
 * scanned for what they would become (cells, line lengths: scanTableBytes) before they are
 * decoded, and decoded strictly (invalid UTF-8 is an error naming the line).
 */
export function readTableFile(path: string, opts: Omit<ReadTableOptions, 'name'> = {}): Table {
  const bytes = maybeGunzip(readRegularFile(path, MAX_TABLE_BYTES), path, MAX_TABLE_BYTES);
  if (bytes.length > MAX_TABLE_BYTES)
    throw new TooLargeError(`${path}: ${formatBytes(bytes.length)} of text, more than the ${formatBytes(MAX_TABLE_BYTES)} paralens reads into a table`, {
      bytes: bytes.length,
    });
  scanTableBytes(bytes, path, opts.delimiter);
  return readTable(decodeTableText(bytes, path), { ...opts, name: path });
}

/** Reads a .npy file: its header first (what the array would become is checked before the rest is read). */
export function readNpyFile(path: string): NdArray {
  return withRegularFile(path, path, (f) => {
    const h = parseNpyHeader(f.read(0, Math.min(f.size, 12 + NPY_MAX_HEADER)), path);
    if (f.size !== h.dataStart + h.dataBytes) throw npySizeError(h, f.size, path);
    return parseNpy(f.read(0, f.size), path);
  });
}

/** Reads the arrays of an .npz file (stored or deflated entries), by name: the directory first, each entry's bytes only once its size is checked (parseNpz). */
export function readNpzFile(path: string): Map<string, NdArray> {
  return withRegularFile(path, path, (f) => parseNpz(f, path, (data, maxBytes) => inflateRawSync(data, { maxOutputLength: Math.max(1, maxBytes) })));
}

/** An image file and its label file in an IDX directory, and whether they are the training or the test split. */
export interface IdxPair {
  images: string;
  labels: string;
  split: 'train' | 'test' | undefined;
}

/**
 * The image/label pairs of a directory of IDX files: `X-images-idx3-ubyte[.gz]` with
 * `X-labels-idx1-ubyte[.gz]` (MNIST's and Fashion-MNIST's names); a prefix with 'train' is
 * the training split, with 't10k' or 'test' the test split.
 */
function idxPairs(dir: string): IdxPair[] {
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch (e) {
    throw new DataError(`idx:${dir}: cannot read the directory: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const pairs: IdxPair[] = [];
  for (const f of files.filter((f) => /images/i.test(f)).sort()) {
    const want = f.replace(/images/i, 'labels').replace(/idx3/i, 'idx1');
    const labels = files.find((g) => g === want) ?? files.find((g) => g.replace(/\.gz$/, '') === want.replace(/\.gz$/, ''));
    if (!labels) continue;
    const split = /train/i.test(f) ? 'train' : /t10k|test/i.test(f) ? 'test' : undefined;
    pairs.push({ images: join(dir, f), labels: join(dir, labels), split });
  }
  return pairs;
}

/** The image/label files of an IDX directory's training split and, where there is one, its test split (paths); a DataError when there is no training pair. */
export function idxSplitFiles(dir: string, name = `idx:${dir}`): { train: IdxPair; test?: IdxPair } {
  const pairs = idxPairs(dir);
  const train = pairs.length === 1 ? pairs[0] : pairs.find((p) => p.split === 'train');
  const test = pairs.length === 1 ? undefined : pairs.find((p) => p.split === 'test');
  if (!train) {
    const found = pairs.length ? `pairs ${pairs.map((p) => p.images).join(', ')} but none named train` : 'no image/label pairs';
    throw new DataError(`${name}: ${found}; expected X-images-idx3-ubyte[.gz] with X-labels-idx1-ubyte[.gz] (train-… and t10k-… or test-… for two splits)`);
  }
  return { train, ...(test ? { test } : {}) };
}

/** Raw arrays (pixels 0…255) of an IDX directory's splits, with their preprocessing (scale 1/255, the classes). */
export interface IdxSplits {
  train: { data: Dataset; preprocessing: Preprocessing };
  test?: { data: Dataset; preprocessing: Preprocessing };
}

/**
 * The training (and, where there is one, the test) split of a directory of IDX image/label
 * files. Classes are `classes` (Fashion-MNIST's names), else the label values 0 … K−1 of
 * both splits. A directory without such a pair, or with several and no train/test naming,
 * is a DataError listing what it holds.
 */
export function readIdxDirectory(dir: string, opts: { name?: string; classes?: readonly string[]; limit?: number; scale?: ArrayScale } = {}): IdxSplits {
  const name = opts.name ?? `idx:${dir}`;
  const { train, test } = idxSplitFiles(dir, name);
  const read = (p: IdxPair): [IdxArray, IdxArray] => [readIdxFile(p.images), readIdxFile(p.labels)];
  const tr = read(train),
    te = test && read(test);
  let classes = opts.classes;
  if (!classes) {
    let top = 0;
    for (const l of [tr[1], ...(te ? [te[1]] : [])]) for (const c of l.data) top = Math.max(top, c);
    classes = Array.from({ length: top + 1 }, (_, c) => String(c));
  }
  return {
    train: idxArrays(tr[0], tr[1], { name, classes, limit: opts.limit, scale: opts.scale }),
    ...(te ? { test: idxArrays(te[0], te[1], { name: `${name}/test`, classes, limit: opts.limit, scale: opts.scale }) } : {}),
  };
}

/** `dir/name.gz` if it exists, else `dir/name`; a DataError naming the package and --data-dir when neither does. */
function requireFashionMnist(dir: string): void {
  for (const name of ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte', 't10k-labels-idx1-ubyte']) {
    if ([join(dir, `${name}.gz`), join(dir, name)].some((p) => existsSync(p))) continue;
    const where =
      dir === FASHION_MNIST_DIR
        ? 'install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist)'
        : 'check the directory, or install the Debian package dataset-fashion-mnist';
    throw new DataError(
      `fashion-mnist: ${join(dir, name)}(.gz) not found: ${where}, or point --data-dir at a directory holding {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]`,
    );
  }
}

export interface FashionMnistOptions {
  /** Directory of the four IDX files (default /usr/share/datasets/fashion-mnist). */
  dataDir?: string;
  /** Keep only the first `limit` rows of each split. */
  limit?: number;
  /** 'flat' (default): x [N,784]; 'image': x [N,1,28,28] for convolutional models. */
  layout?: ImageLayout;
  /** How the pixels become model inputs (default ÷255, to [0,1]). */
  scale?: ArrayScale;
}

/** Fashion-MNIST's splits as raw arrays with their preprocessing (what the CLI trains on and saves with a model). */
export function readFashionMnist(opts: Omit<FashionMnistOptions, 'layout'> = {}): IdxSplits & { test: IdxSplits['train'] } {
  const dir = opts.dataDir ?? FASHION_MNIST_DIR;
  requireFashionMnist(dir);
  const s = readIdxDirectory(dir, { name: 'fashion-mnist', classes: FASHION_MNIST_CLASSES, limit: opts.limit, scale: opts.scale });
  return { train: s.train, test: s.test! };
}

/**
 * Fashion-MNIST (Xiao, Rasul & Vollgraf 2017): 60 000 training and 10 000 test images of
 * 28×28 grey levels scaled to [0,1], one-hot targets over ten clothing classes.
 */
export function loadFashionMnist(opts: FashionMnistOptions = {}): { train: Dataset; test: Dataset } {
  const s = readFashionMnist(opts);
  const ready = (p: IdxSplits['train']): Dataset => withImageLayout(applyPreprocessing(p.preprocessing, p.data, { inPlace: true }), opts.layout ?? 'flat');
  return { train: ready(s.train), test: ready(s.test) };
}
