import { clip, quote } from '../errors.js';
import { parseJsonWithin } from '../json.js';
import { Tensor, sizeOf } from '../tensor/tensor.js';
import { FileFormatError } from './errors.js';

/**
 * The safetensors format (the one PyTorch and Hugging Face read), bytes in and bytes out:
 *
 *   [ N: u64 little-endian ][ N bytes: JSON header ][ data section ]
 *
 * The header maps each tensor name to {dtype, shape, data_offsets: [begin, end)} with
 * offsets relative to the data section, plus an optional `__metadata__` of string → string.
 * Readers validate the header completely (length, JSON, dtypes, offsets) before any tensor
 * value is read, and never allocate more than the file holds.
 */

/** Element types paralens reads and writes, with their sizes in bytes. */
export const DTYPE_BYTES = { F32: 4, F64: 8 } as const;
export type SafetensorsDType = keyof typeof DTYPE_BYTES;

/** Headers larger than this are refused without allocating (the reference Rust reader uses the same bound). */
export const MAX_HEADER_BYTES = 100_000_000;

/**
 * What a header may become once parsed: nesting (the format's own is 3 deep), members of one
 * object (tensors, metadata keys) and values in all — checked by a scan before JSON.parse, so
 * a header of millions of keys or thousands of nested brackets is refused at once.
 */
export const HEADER_LIMITS = { maxDepth: 8, maxMembers: 65_536, maxValues: 2 ** 21, integersOnly: true } as const;

/** Other dtypes of the format, named in the error when a file uses one. */
const OTHER_DTYPES = ['F16', 'BF16', 'F8_E4M3', 'F8_E5M2', 'I8', 'I16', 'I32', 'I64', 'U8', 'U16', 'U32', 'U64', 'BOOL'];

/** One tensor of a header: where its bytes are within the data section. */
export interface TensorEntry {
  readonly name: string;
  readonly dtype: SafetensorsDType;
  readonly shape: readonly number[];
  readonly begin: number;
  readonly end: number;
}

/** A validated header: entries sorted by offset, the metadata, and where the data section lies in the file. */
export interface SafetensorsHeader {
  readonly entries: readonly TensorEntry[];
  readonly metadata: Readonly<Record<string, string>>;
  /** Byte offset of the data section in the file (8 + header length). */
  readonly dataStart: number;
  readonly dataLength: number;
}

/** A named tensor to write. */
export interface NamedTensor {
  readonly name: string;
  readonly tensor: Tensor;
}

/**
 * Reads and checks the 8-byte header length N: it must fit in the file (and below
 * MAX_HEADER_BYTES) so that nothing is allocated for a header that is not there.
 */
export function readHeaderLength(prefix: Uint8Array, fileSize: number): number {
  if (fileSize < 8 || prefix.length < 8) {
    throw new FileFormatError(`not a safetensors file: ${fileSize} bytes, shorter than the 8-byte header length`);
  }
  const view = new DataView(prefix.buffer, prefix.byteOffset, 8);
  const lo = view.getUint32(0, true);
  const hi = view.getUint32(4, true);
  const n = hi * 2 ** 32 + lo;
  if (n > MAX_HEADER_BYTES) {
    throw new FileFormatError(`safetensors header length ${n} bytes is absurdly large (limit ${MAX_HEADER_BYTES}); the file is corrupt or not safetensors`);
  }
  if (n > fileSize - 8) {
    throw new FileFormatError(`safetensors header length ${n} bytes goes beyond the end of the file (${fileSize} bytes): the file is truncated or corrupt`);
  }
  if (n < 2) throw new FileFormatError(`safetensors header length ${n} is too short to hold a JSON object`);
  return n;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Parses and validates the JSON header (`json` are its N bytes) against a data section of `dataLength` bytes. */
export function parseHeader(json: Uint8Array, dataStart: number, dataLength: number): SafetensorsHeader {
  let text: string;
  try {
    // ignoreBOM: a byte-order mark stays in the text, to be refused below rather than dropped
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(json);
  } catch {
    throw new FileFormatError('safetensors header is not valid UTF-8');
  }
  if (text.charCodeAt(0) === 0xfeff) throw new FileFormatError("safetensors header starts with a byte-order mark; the format's header is plain UTF-8 JSON");
  const parsed = parseJsonWithin(text, HEADER_LIMITS);
  if (!parsed.ok) throw new FileFormatError(`safetensors header is not JSON paralens reads (${clip(parsed.reason, 160)}); starts with ${quote(text, 40)}`);
  const raw = parsed.value;
  if (!isRecord(raw)) throw new FileFormatError('safetensors header must be a JSON object of tensor entries');
  const dup = duplicateKey(text);
  if (dup !== undefined)
    throw new FileFormatError(`safetensors header has the duplicate key ${quote(dup)}: JSON.parse would keep the last one silently; the file is ambiguous`);
  // null-prototype records: keys such as '__proto__' or 'toString' are plain keys here
  const metadata: Record<string, string> = Object.create(null);
  const entries: TensorEntry[] = [];
  for (const [name, v] of Object.entries(raw)) {
    if (name === '__metadata__') {
      if (!isRecord(v)) throw new FileFormatError('safetensors __metadata__ must be an object of strings');
      for (const [k, s] of Object.entries(v)) {
        if (typeof s !== 'string') throw new FileFormatError(`safetensors __metadata__[${quote(k)}] must be a string, got ${shown(s)}`);
        metadata[k] = s;
      }
      continue;
    }
    entries.push(parseEntry(name, v));
  }
  checkOffsets(entries, dataLength);
  entries.sort((a, b) => a.begin - b.begin || a.end - b.end);
  return { entries, metadata, dataStart, dataLength };
}

/** A JSON value of a header for a one-line message (its depth is bounded by HEADER_LIMITS, its length here). */
const shown = (v: unknown): string => clip(JSON.stringify(v), 120);

/**
 * The first key that appears twice in one object of (valid) JSON text, decoded ("a\u0062" is
 * "ab"), or undefined. A linear scan: strings, and a stack of the objects and arrays open.
 */
export function duplicateKey(text: string): string | undefined {
  const stack: (Set<string> | null)[] = []; // a Set of keys per open object, null per array
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const top = stack[stack.length - 1];
      if (top && expectKey) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === '{') {
      stack.push(new Set());
      expectKey = true;
    } else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === ',') expectKey = stack[stack.length - 1] instanceof Set;
  }
  return undefined;
}

function parseEntry(name: string, v: unknown): TensorEntry {
  const where = `safetensors tensor ${quote(name)}`;
  if (!isRecord(v)) throw new FileFormatError(`${where}: expected {dtype, shape, data_offsets}, got ${shown(v)}`);
  const { dtype, shape, data_offsets: offsets } = v;
  if (typeof dtype !== 'string') throw new FileFormatError(`${where}: dtype must be a string`);
  if (!(dtype in DTYPE_BYTES)) {
    const known = OTHER_DTYPES.includes(dtype) ? 'a safetensors dtype paralens does not read' : 'not a safetensors dtype';
    throw new FileFormatError(`${where}: dtype ${quote(dtype)} is ${known}; expected one of ${Object.keys(DTYPE_BYTES).join(', ')}`);
  }
  if (!Array.isArray(shape) || !shape.every(isCount)) throw new FileFormatError(`${where}: shape must be a list of non-negative integers, got ${shown(shape)}`);
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount)) {
    throw new FileFormatError(`${where}: data_offsets must be [begin, end] with non-negative integers, got ${shown(offsets)}`);
  }
  const [begin, end] = offsets as [number, number];
  if (end < begin) throw new FileFormatError(`${where}: data_offsets [${begin}, ${end}] are out of order (end before begin)`);
  const size = DTYPE_BYTES[dtype as SafetensorsDType];
  const count = (shape as number[]).reduce((n, d) => n * d, 1);
  if (!Number.isSafeInteger(count * size) || count * size !== end - begin) {
    throw new FileFormatError(
      `${where}: shape ${clip(`[${shape.join(',')}]`, 80)} of ${dtype} needs ${count * size} bytes but data_offsets [${begin}, ${end}] hold ${end - begin}`,
    );
  }
  return { name, dtype: dtype as SafetensorsDType, shape: shape as number[], begin, end };
}

/** The entries must tile the data section exactly: in range, no overlap, no gap. */
function checkOffsets(entries: readonly TensorEntry[], dataLength: number): void {
  for (const e of entries) {
    if (e.end > dataLength) {
      throw new FileFormatError(
        `safetensors tensor ${quote(e.name)} ends at byte ${e.end} of the data section, which has only ${dataLength} bytes: the file is truncated`,
      );
    }
  }
  const sorted = [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = 0;
  let prev: TensorEntry | undefined;
  for (const e of sorted) {
    if (e.begin < at) {
      throw new FileFormatError(`safetensors tensors ${quote(prev!.name)} [${prev!.begin}, ${prev!.end}) and ${quote(e.name)} [${e.begin}, ${e.end}) overlap`);
    }
    if (e.begin > at) throw new FileFormatError(`safetensors data bytes ${at}..${e.begin} belong to no tensor (before ${quote(e.name)})`);
    at = e.end;
    prev = e;
  }
  if (at !== dataLength) throw new FileFormatError(`safetensors data section has ${dataLength} bytes but the tensors cover ${at}`);
}

/** Validates the whole header of a file held in memory (nothing of the data is read). */
export function readSafetensorsHeader(bytes: Uint8Array): SafetensorsHeader {
  const n = readHeaderLength(bytes, bytes.length);
  return parseHeader(bytes.subarray(8, 8 + n), 8 + n, bytes.length - 8 - n);
}

/** One tensor's values from the data section (little-endian), as a float32 or float64 Tensor. */
export function readTensor(entry: TensorEntry, data: Uint8Array): Tensor {
  const n = sizeOf(entry.shape);
  const view = new DataView(data.buffer, data.byteOffset + entry.begin, entry.end - entry.begin);
  if (entry.dtype === 'F64') {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = view.getFloat64(8 * i, true);
    return new Tensor(out, entry.shape);
  }
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = view.getFloat32(4 * i, true);
  return new Tensor(out, entry.shape);
}

/** Reads a whole file: the validated header, then every tensor by name. */
export function decodeSafetensors(bytes: Uint8Array): { tensors: Map<string, Tensor>; metadata: Record<string, string> } {
  const header = readSafetensorsHeader(bytes);
  const data = bytes.subarray(header.dataStart);
  const tensors = new Map(header.entries.map((e) => [e.name, readTensor(e, data)] as const));
  return { tensors, metadata: { ...header.metadata } };
}

/**
 * Writes tensors in the given order (float32 tensors as F32, float64 as F64) with string
 * metadata. The header is padded with spaces to a multiple of 8 bytes so the data is aligned.
 */
export function encodeSafetensors(tensors: readonly NamedTensor[], metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  const header: Record<string, unknown> = Object.create(null);
  if (Object.keys(metadata).length) header.__metadata__ = { ...metadata };
  let offset = 0;
  for (const { name, tensor } of tensors) {
    if (name === '__metadata__' || Object.hasOwn(header, name)) throw new FileFormatError(`cannot write two tensors named ${quote(name)}`);
    const dtype: SafetensorsDType = tensor.dtype === 'float64' ? 'F64' : 'F32';
    const bytes = tensor.size * DTYPE_BYTES[dtype];
    header[name] = { dtype, shape: [...tensor.shape], data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const p = new Uint8Array(padded).fill(0x20);
    p.set(json);
    json = p;
  }
  const out = new Uint8Array(8 + json.length + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, json.length, true);
  view.setUint32(4, 0, true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const { tensor } of tensors) {
    const d = tensor.data;
    if (tensor.dtype === 'float64') for (let i = 0; i < d.length; i++, at += 8) view.setFloat64(at, d[i]!, true);
    else for (let i = 0; i < d.length; i++, at += 4) view.setFloat32(at, d[i]!, true);
  }
  return out;
}
