import { DataError } from '../errors.js';
import { arraysDataset, withImageLayout } from './arrays.js';
import type { ArrayScale, ImageLayout } from './arrays.js';
import type { NdArray } from './npy.js';
import { applyPreprocessing } from './preprocessing.js';
import type { Preprocessing } from './preprocessing.js';
import type { Dataset } from './dataset.js';

/**
 * The IDX format (LeCun & Cortes, the MNIST page; Fashion-MNIST uses it too): a 4-byte
 * magic `0 0 T D` (T the element type, D the number of dimensions), D big-endian uint32
 * sizes, then the elements in row-major order, big-endian. This module is browser-safe;
 * `src/data/node.ts` reads the files in Node.
 */
export type IdxType = 'uint8' | 'int8' | 'int16' | 'int32' | 'float32' | 'float64';

const TYPES: Record<number, { type: IdxType; bytes: number }> = {
  0x08: { type: 'uint8', bytes: 1 },
  0x09: { type: 'int8', bytes: 1 },
  0x0b: { type: 'int16', bytes: 2 },
  0x0c: { type: 'int32', bytes: 4 },
  0x0d: { type: 'float32', bytes: 4 },
  0x0e: { type: 'float64', bytes: 8 },
};

/** Refuse files that claim more elements than this (a corrupt header must not allocate gigabytes). */
export const IDX_MAX_ELEMENTS = 1 << 28;

/** A parsed IDX array: its element type, its dimensions, and its values (uint8 data stays bytes). */
export interface IdxArray {
  readonly type: IdxType;
  readonly dims: readonly number[];
  readonly data: Uint8Array | Int8Array | Int16Array | Int32Array | Float32Array | Float64Array;
}

/** True when the bytes start with the gzip magic 1f 8b. */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * Parses uncompressed IDX bytes. DataErrors (naming `source`) for a bad magic, an unknown
 * element type, a header or body shorter than the header says (truncated), trailing bytes,
 * or a size above IDX_MAX_ELEMENTS.
 */
export function parseIdx(bytes: Uint8Array, source = 'IDX data'): IdxArray {
  if (isGzip(bytes)) throw new DataError(`${source}: the data is gzip-compressed; decompress it first (decodeIdx does)`);
  if (bytes.length < 4 || bytes[0] !== 0 || bytes[1] !== 0) {
    const got = Array.from(bytes.subarray(0, 4), (b) => b.toString(16).padStart(2, '0')).join(' ');
    throw new DataError(`${source}: not an IDX file: expected the magic 00 00 <type> <rank> but got '${got}'`);
  }
  const t = TYPES[bytes[2]!];
  if (!t) throw new DataError(`${source}: unknown IDX element type 0x${bytes[2]!.toString(16)}; expected one of 08 09 0b 0c 0d 0e`);
  const rank = bytes[3]!;
  const header = 4 + 4 * rank;
  if (bytes.length < header) throw new DataError(`${source}: truncated IDX header: ${rank} dimensions need ${header} bytes but the file has ${bytes.length}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dims: number[] = [];
  let count = 1;
  for (let i = 0; i < rank; i++) {
    const d = view.getUint32(4 + 4 * i, false);
    dims.push(d);
    count *= d;
  }
  if (count > IDX_MAX_ELEMENTS) {
    throw new DataError(
      `${source}: IDX header claims [${dims.join(',')}] = ${count} elements, more than the limit ${IDX_MAX_ELEMENTS}; the file is corrupt or not IDX`,
    );
  }
  const need = header + count * t.bytes;
  if (bytes.length < need)
    throw new DataError(`${source}: truncated IDX file: dimensions [${dims.join(',')}] need ${need} bytes but the file has ${bytes.length}`);
  if (bytes.length > need)
    throw new DataError(`${source}: size mismatch: dimensions [${dims.join(',')}] need ${need} bytes but the file has ${bytes.length} (trailing data)`);
  return { type: t.type, dims, data: readElements(view, header, count, t.type) };
}

/**
 * The size in bytes the IDX header at the start of `prefix` declares for the whole file, or
 * undefined when the prefix is too short to hold the header: lets a reader of a compressed file
 * refuse or bound it before inflating it. A header beyond IDX_MAX_ELEMENTS is a DataError.
 */
export function idxDeclaredBytes(prefix: Uint8Array, source = 'IDX data'): number | undefined {
  const t = TYPES[prefix[2]!];
  if (prefix.length < 4 || !t) return undefined; // parseIdx names what is wrong
  const header = 4 + 4 * prefix[3]!;
  if (prefix.length < header) return undefined;
  const view = new DataView(prefix.buffer, prefix.byteOffset, header);
  let count = 1;
  for (let i = 0; i < prefix[3]!; i++) count *= view.getUint32(4 + 4 * i, false);
  if (count > IDX_MAX_ELEMENTS)
    throw new DataError(`${source}: IDX header claims ${count} elements, more than the limit ${IDX_MAX_ELEMENTS}; the file is corrupt or not IDX`);
  return header + count * t.bytes;
}

function readElements(view: DataView, off: number, n: number, type: IdxType): IdxArray['data'] {
  switch (type) {
    case 'uint8':
      return new Uint8Array(view.buffer, view.byteOffset + off, n).slice();
    case 'int8':
      return new Int8Array(view.buffer, view.byteOffset + off, n).slice();
    case 'int16':
      return Int16Array.from({ length: n }, (_, i) => view.getInt16(off + 2 * i, false));
    case 'int32':
      return Int32Array.from({ length: n }, (_, i) => view.getInt32(off + 4 * i, false));
    case 'float32':
      return Float32Array.from({ length: n }, (_, i) => view.getFloat32(off + 4 * i, false));
    case 'float64':
      return Float64Array.from({ length: n }, (_, i) => view.getFloat64(off + 8 * i, false));
  }
}

/** Gunzips with the web platform's DecompressionStream (browsers, Deno, Node ≥ 18). */
export async function gunzip(bytes: Uint8Array, source = 'IDX data'): Promise<Uint8Array> {
  try {
    const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  } catch (e) {
    throw new DataError(`${source}: cannot gunzip: ${(e as Error).message} (truncated or corrupt .gz file?)`);
  }
}

/** Parses IDX bytes that may be gzip-compressed (detected by the gzip magic). Browser-safe. */
export async function decodeIdx(bytes: Uint8Array, source = 'IDX data'): Promise<IdxArray> {
  return parseIdx(isGzip(bytes) ? await gunzip(bytes, source) : bytes, source);
}

/** The ten Fashion-MNIST classes (Xiao, Rasul & Vollgraf 2017), in label order. */
export const FASHION_MNIST_CLASSES: readonly string[] = [
  'T-shirt/top',
  'Trouser',
  'Pullover',
  'Dress',
  'Coat',
  'Sandal',
  'Shirt',
  'Sneaker',
  'Bag',
  'Ankle boot',
];

export type { ImageLayout } from './arrays.js';

export interface IdxDatasetOptions {
  name: string;
  classes: readonly string[];
  layout?: ImageLayout;
  /** Keep only the first `limit` samples. */
  limit?: number;
  /** How the pixels become model inputs (default ÷255, to [0,1]). */
  scale?: ArrayScale;
}

/**
 * An IDX image array [N, H, W] (uint8) and an IDX label array [N] (uint8 class indices) as raw
 * arrays (pixels 0…255, x [N, H, W]) with their preprocessing: scale 1/255, the classes.
 */
export function idxArrays(images: IdxArray, labels: IdxArray, opts: Omit<IdxDatasetOptions, 'layout'>): { data: Dataset; preprocessing: Preprocessing } {
  const { name, classes } = opts;
  if (images.type !== 'uint8' || images.dims.length !== 3) {
    throw new DataError(`${name}: expected images as uint8 [N,H,W] but got ${images.type} [${images.dims.join(',')}]`);
  }
  if (labels.type !== 'uint8' || labels.dims.length !== 1) {
    throw new DataError(`${name}: expected labels as uint8 [N] but got ${labels.type} [${labels.dims.join(',')}]`);
  }
  const [n0, H, W] = images.dims as [number, number, number];
  if (labels.dims[0] !== n0) throw new DataError(`${name}: ${n0} images but ${labels.dims[0]} labels`);
  const N = opts.limit === undefined ? n0 : Math.min(n0, opts.limit);
  const x: NdArray = { shape: [N, H, W], kind: 'uint8', data: (images.data as Uint8Array).subarray(0, N * H * W) };
  const y: NdArray = { shape: [N], kind: 'uint8', data: (labels.data as Uint8Array).subarray(0, N) };
  return arraysDataset(x, y, { name, classes, task: 'classify', scale: opts.scale });
}

/**
 * A classification Dataset from an IDX image array [N, H, W] (uint8, scaled to [0,1]) and
 * an IDX label array [N] (uint8 class indices): x [N, H·W] or [N, 1, H, W], one-hot y [N, K].
 */
export function idxDataset(images: IdxArray, labels: IdxArray, opts: IdxDatasetOptions): Dataset {
  const { data, preprocessing } = idxArrays(images, labels, opts);
  return withImageLayout(applyPreprocessing(preprocessing, data, { inPlace: true }), opts.layout ?? 'flat');
}
