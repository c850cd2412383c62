import { DataError, formatBytes, TooLargeError } from '../errors.js';

/**
 * NumPy's .npy format (numpy.lib.format, versions 1.0–3.0): the magic "\x93NUMPY", a version,
 * a little-endian header length (2 bytes in 1.0, 4 in 2.0 and 3.0), a Python dict literal
 * {'descr': '<f4', 'fortran_order': False, 'shape': (N, d), } and the elements. Numbers of
 * any byte order and width, booleans and fixed-width unicode strings ('<U5') are read;
 * structured and object arrays are refused. Browser-safe.
 */

/** Refuse arrays that claim more elements than this (a corrupt header must not allocate gigabytes). */
export const NPY_MAX_ELEMENTS = 1 << 26;

/**
 * The most memory one array may become, estimated from its header before anything is read:
 * its bytes as read, its values as their own typed array and as a float32 tensor (text: the
 * strings). 1 GiB.
 */
export const NPY_MAX_BYTES = 2 ** 30;

export type NpyData = Float32Array | Float64Array | Uint8Array | Int8Array | Int16Array | Uint16Array | Int32Array | Uint32Array;

/** An array read from a .npy file: its shape in C order, and numbers (as their own typed array) or strings. */
export interface NdArray {
  readonly shape: readonly number[];
  /** 'float' (f2 is refused), 'int' (signed or unsigned, any width), 'uint8' (u1: pixels), 'bool', 'text' (unicode). */
  readonly kind: 'float' | 'int' | 'uint8' | 'bool' | 'text';
  /** The numbers, C order (empty for text). 64-bit integers become float64 (exact below 2⁵³). */
  readonly data: NpyData;
  /** The strings, C order (text arrays only). */
  readonly text?: readonly string[];
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY

/** What a .npy header declares: where the data starts, the dtype, the shape and the element count. */
export interface NpyHeader {
  readonly descr: string;
  readonly fortran: boolean;
  readonly shape: readonly number[];
  readonly count: number;
  /** Byte offset of the data; the file is dataStart + dataBytes long. */
  readonly dataStart: number;
  readonly dataBytes: number;
  /** What the array becomes in memory (NPY_MAX_BYTES bounds it). */
  readonly memoryBytes: number;
}

/** The most header bytes a .npy file may have before its data (numpy writes a few hundred). */
export const NPY_MAX_HEADER = 65_536;

/**
 * Reads and checks a .npy header from the start of a file (`prefix`: at least its first
 * 10 + NPY_MAX_HEADER bytes, or the whole file when shorter): the magic, the version, the
 * dtype, the shape, and the limits on what the array becomes — all before any data is read.
 */
export function parseNpyHeader(prefix: Uint8Array, source = 'npy data'): NpyHeader {
  const bytes = prefix;
  if (bytes.length < 10 || MAGIC.some((b, i) => bytes[i] !== b)) {
    throw new DataError(`${source}: not a .npy file: expected the magic \\x93NUMPY at the start`);
  }
  const major = bytes[6]!;
  if (major < 1 || major > 3) throw new DataError(`${source}: .npy version ${major}.${bytes[7]} is not one of 1.0, 2.0, 3.0`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  if (bytes.length < 8 + lenBytes) throw new DataError(`${source}: truncated .npy header`);
  const headerLen = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  if (headerLen > NPY_MAX_HEADER)
    throw new DataError(`${source}: the .npy header claims ${headerLen} bytes, more than the ${NPY_MAX_HEADER} a header may have`);
  const start = 8 + lenBytes + headerLen;
  if (start > bytes.length)
    throw new DataError(`${source}: the .npy header claims ${headerLen} bytes but the file has ${bytes.length - 8 - lenBytes} after the magic`);
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(8 + lenBytes, start));
  const { descr, fortran, shape } = parseHeader(header, source);
  const type = dtypeOf(descr, source);
  let count = 1;
  for (const d of shape) count *= d;
  const dims = `(${shape.join(', ')})`;
  if (count > NPY_MAX_ELEMENTS)
    throw new TooLargeError(`${source}: shape ${dims} is ${count} elements, more than the limit ${NPY_MAX_ELEMENTS}`, { elements: count });
  // as read, as its own typed array (or strings: 2 bytes a character and a string's overhead), as a float32 tensor
  const memoryBytes = count * (type.bytes + (type.kind === 'text' ? (type.bytes / 4) * 2 + 40 : type.bytes + 4));
  if (memoryBytes > NPY_MAX_BYTES)
    throw new TooLargeError(
      `${source}: shape ${dims} of ${descr} would take about ${formatBytes(memoryBytes)} in memory; the limit for one array is ${formatBytes(NPY_MAX_BYTES)}`,
      { elements: count, bytes: memoryBytes },
    );
  return { descr, fortran, shape, count, dataStart: start, dataBytes: count * type.bytes, memoryBytes };
}

/** The DataError for a file whose length is not its header's plus the data the header declares. */
export function npySizeError(h: NpyHeader, fileBytes: number, source: string): DataError {
  const have = fileBytes - h.dataStart;
  return new DataError(
    `${source}: shape (${h.shape.join(', ')}) of ${h.descr} needs ${h.dataBytes} bytes of data but the file has ${have}${have < h.dataBytes ? ' (truncated)' : ' (trailing data)'}`,
  );
}

/** Parses a .npy file's bytes. DataErrors (naming `source`) for a bad magic or header, an unsupported dtype, a size that does not match the shape. */
export function parseNpy(bytes: Uint8Array, source = 'npy data'): NdArray {
  const h = parseNpyHeader(bytes, source);
  const { descr, fortran, shape, count, dataStart: start } = h;
  const type = dtypeOf(descr, source);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length !== start + h.dataBytes) throw npySizeError(h, bytes.length, source);
  const order = fortran && shape.length > 1 ? fortranToC(shape) : undefined;
  if (type.kind === 'text') {
    const chars = type.bytes / 4;
    const text = new Array<string>(count);
    for (let i = 0; i < count; i++) {
      const at = start + (order ? order[i]! : i) * type.bytes;
      let s = '';
      for (let c = 0; c < chars; c++) {
        const cp = view.getUint32(at + 4 * c, type.little);
        if (cp === 0) break;
        if (cp > 0x10ffff) throw new DataError(`${source}: element ${i} holds the code point ${cp}, beyond Unicode (0x10FFFF)`);
        s += String.fromCodePoint(cp);
      }
      text[i] = s;
    }
    return { shape, kind: 'text', data: new Float64Array(0), text };
  }
  const data = type.make(count);
  for (let i = 0; i < count; i++) data[i] = type.read(view, start + (order ? order[i]! : i) * type.bytes, type.little);
  return { shape, kind: type.kind, data };
}

function parseHeader(h: string, source: string): { descr: string; fortran: boolean; shape: number[] } {
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(h);
  if (!descr) {
    if (/'descr'\s*:\s*\[/.test(h)) throw new DataError(`${source}: structured arrays (a list as 'descr') are not supported; save plain numeric arrays`);
    throw new DataError(`${source}: the .npy header has no 'descr': ${JSON.stringify(h.trim().slice(0, 80))}`);
  }
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(h);
  if (!fortran) throw new DataError(`${source}: the .npy header has no 'fortran_order': True or False`);
  const shape = /'shape'\s*:\s*\(([^)]*)\)/.exec(h);
  if (!shape) throw new DataError(`${source}: the .npy header has no 'shape' tuple`);
  const dims = shape[1]!
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (dims.some((s) => !/^\d+$/.test(s) || Number(s) > 2 ** 31)) throw new DataError(`${source}: shape (${shape[1]}) must be non-negative integers`);
  return { descr: descr[1]!, fortran: fortran[1] === 'True', shape: dims.map(Number) };
}

interface Dtype {
  kind: NdArray['kind'];
  bytes: number;
  little: boolean;
  make(n: number): NpyData;
  read(v: DataView, at: number, little: boolean): number;
}

function dtypeOf(descr: string, source: string): Dtype {
  const m = /^([<>|=])([fiubU])(\d+)$/.exec(descr);
  if (!m)
    throw new DataError(
      `${source}: dtype '${descr}' is not supported; paralens reads floats, integers, booleans and unicode strings ('<f4', '<i8', '|u1', '|b1', '<U10')`,
    );
  const little = m[1] !== '>';
  const c = m[2]!,
    n = Number(m[3]);
  const key = `${c}${n}`;
  const types: Record<string, Omit<Dtype, 'little'>> = {
    f4: { kind: 'float', bytes: 4, make: (k) => new Float32Array(k), read: (v, at, l) => v.getFloat32(at, l) },
    f8: { kind: 'float', bytes: 8, make: (k) => new Float64Array(k), read: (v, at, l) => v.getFloat64(at, l) },
    i1: { kind: 'int', bytes: 1, make: (k) => new Int8Array(k), read: (v, at) => v.getInt8(at) },
    i2: { kind: 'int', bytes: 2, make: (k) => new Int16Array(k), read: (v, at, l) => v.getInt16(at, l) },
    i4: { kind: 'int', bytes: 4, make: (k) => new Int32Array(k), read: (v, at, l) => v.getInt32(at, l) },
    i8: { kind: 'int', bytes: 8, make: (k) => new Float64Array(k), read: (v, at, l) => Number(v.getBigInt64(at, l)) },
    u1: { kind: 'uint8', bytes: 1, make: (k) => new Uint8Array(k), read: (v, at) => v.getUint8(at) },
    u2: { kind: 'int', bytes: 2, make: (k) => new Uint16Array(k), read: (v, at, l) => v.getUint16(at, l) },
    u4: { kind: 'int', bytes: 4, make: (k) => new Uint32Array(k), read: (v, at, l) => v.getUint32(at, l) },
    u8: { kind: 'int', bytes: 8, make: (k) => new Float64Array(k), read: (v, at, l) => Number(v.getBigUint64(at, l)) },
    b1: { kind: 'bool', bytes: 1, make: (k) => new Uint8Array(k), read: (v, at) => (v.getUint8(at) ? 1 : 0) },
  };
  if (c === 'U') {
    if (!(n >= 1 && n <= 4096)) throw new DataError(`${source}: dtype '${descr}': strings of 1 to 4096 characters are supported`);
    return { kind: 'text', bytes: 4 * n, little, make: () => new Float64Array(0), read: () => 0 };
  }
  const t = types[key];
  if (!t)
    throw new DataError(
      `${source}: dtype '${descr}' is not supported (${c === 'f' ? 'float16 and wider floats' : 'this width'}); save as float32, float64 or an integer type`,
    );
  return { ...t, little };
}

/** For each C-order index, the index of the same element in Fortran (column-major) order. */
function fortranToC(shape: readonly number[]): Int32Array {
  const count = shape.reduce((a, b) => a * b, 1);
  const out = new Int32Array(count);
  const r = shape.length;
  const fStride = new Array<number>(r);
  fStride[0] = 1;
  for (let k = 1; k < r; k++) fStride[k] = fStride[k - 1]! * shape[k - 1]!;
  const idx = new Array<number>(r).fill(0);
  for (let i = 0; i < count; i++) {
    let f = 0;
    for (let k = 0; k < r; k++) f += idx[k]! * fStride[k]!;
    out[i] = f;
    for (let k = r - 1; k >= 0; k--) {
      if (++idx[k]! < shape[k]!) break;
      idx[k] = 0;
    }
  }
  return out;
}
