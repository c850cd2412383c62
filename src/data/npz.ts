import { clip, DataError, formatBytes, quote, TooLargeError } from '../errors.js';
import { inflateCap, inflateRefusal } from './inflate.js';
import { NPY_MAX_HEADER, parseNpy, parseNpyHeader } from './npy.js';
import type { NdArray } from './npy.js';

/**
 * NumPy's .npz: a zip archive of .npy files, one per array (np.savez stores them, np.savez_
 * compressed deflates them). Read from the central directory at the end of the archive
 * (APPNOTE.TXT §4.3.12–16, with the ZIP64 records numpy writes for large arrays), through
 * positioned reads, so a file is never read whole. Every entry's offsets, sizes and method are
 * checked against the file, and its declared size against the inflation rule (src/data/inflate.ts)
 * and, summed over the entries, against NPZ_MAX_BYTES, before anything is inflated; a stored
 * entry's .npy header is read and costed before the rest of it. Inflating stops at the declared
 * size; the result is checked against it and against the CRC-32, and each array's header
 * (parseNpyHeader) against what the arrays may become together. Stored (0) and deflated (8)
 * entries; `inflateRaw` is given by the caller (node:zlib in Node).
 */

/** An entry larger than this (uncompressed) is refused before it is inflated. */
export const NPZ_MAX_ENTRY_BYTES = 2 ** 31 - 1;

/** The most all arrays of one archive may become in memory together (as parseNpyHeader estimates each), and their declared bytes. */
export const NPZ_MAX_BYTES = 2 ** 30;

/** The most entries an archive may list. */
export const NPZ_MAX_ENTRIES = 4096;

/** Raw-deflate decompression returning at most `maxBytes` (throwing beyond). */
export type InflateRaw = (data: Uint8Array, maxBytes: number) => Uint8Array;

/** Positioned reads of an archive: in memory (`bytesSource`) or an open file. */
export interface ByteSource {
  readonly size: number;
  read(position: number, length: number): Uint8Array;
}

/** A byte source over bytes held in memory. */
export function bytesSource(bytes: Uint8Array): ByteSource {
  return { size: bytes.length, read: (position, length) => bytes.subarray(position, position + length) };
}

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc: number;
  compressed: number;
  size: number;
  localOffset: number;
}

const EOCD = 0x06054b50,
  ZIP64_LOCATOR = 0x07064b50,
  ZIP64_EOCD = 0x06064b50,
  CENTRAL = 0x02014b50,
  LOCAL = 0x04034b50;

/** The arrays of an .npz file by name (the entry name without '.npy'). */
export function parseNpz(file: Uint8Array | ByteSource, source: string, inflateRaw: InflateRaw): Map<string, NdArray> {
  const src = file instanceof Uint8Array ? bytesSource(file) : file;
  const entries = centralDirectory(src, source).map((e) => ({
    e,
    name: e.name.endsWith('.npy') ? e.name.slice(0, -4) : e.name,
    at: entryData(src, e, source),
  }));
  const declared = entries.reduce((s, { e }) => s + e.size, 0);
  if (declared > NPZ_MAX_BYTES)
    throw new TooLargeError(`${source}: its entries declare ${formatBytes(declared)}, more than the ${formatBytes(NPZ_MAX_BYTES)} an .npz file may hold`, {
      bytes: declared,
    });
  let memory = 0;
  const out = new Map<string, NdArray>();
  for (const { e, name, at } of entries) {
    const what = `${source}[${name}]`;
    // a stored entry's header is read, and what it declares costed, before the entry itself
    if (e.method === 0) parseNpyHeader(src.read(at.start, Math.min(e.size, 12 + NPY_MAX_HEADER)), what);
    const bytes = entryBytes(src, e, at, source, inflateRaw);
    const header = parseNpyHeader(bytes, what);
    memory += header.memoryBytes;
    if (memory > NPZ_MAX_BYTES)
      throw new TooLargeError(
        `${source}: its arrays would take more than ${formatBytes(NPZ_MAX_BYTES)} in memory together (${formatBytes(memory)} up to ${quote(e.name)})`,
        { bytes: memory },
      );
    out.set(name, parseNpy(bytes, what));
  }
  return out;
}

function u64(v: DataView, at: number): number {
  const n = v.getBigUint64(at, true);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(n);
}

function centralDirectory(src: ByteSource, source: string): ZipEntry[] {
  const notZip = (why: string): never => {
    throw new DataError(`${source}: not a readable .npz (zip) file: ${why}`);
  };
  if (src.size < 22) notZip('shorter than an end-of-central-directory record');
  // the end-of-central-directory record: 22 bytes plus a comment of up to 65535
  const tailStart = Math.max(0, src.size - 22 - 65535);
  const tail = src.read(tailStart, src.size - tailStart);
  const tv = new DataView(tail.buffer, tail.byteOffset, tail.byteLength);
  let eocd = -1;
  for (let at = tail.length - 22; at >= 0; at--) {
    if (tv.getUint32(at, true) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) notZip('no end-of-central-directory record');
  let count = tv.getUint16(eocd + 10, true),
    cdSize = tv.getUint32(eocd + 12, true),
    cdOffset = tv.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = tailStart + eocd - 20;
    if (loc < 0 || u32At(src, loc) !== ZIP64_LOCATOR) notZip('ZIP64 sizes without a ZIP64 locator');
    const z = u64(viewOf(src.read(loc + 8, 8)), 0);
    if (!(z + 56 <= src.size) || u32At(src, z) !== ZIP64_EOCD) notZip('the ZIP64 end record is not where its locator says');
    const rec = viewOf(src.read(z, 56));
    count = u64(rec, 32);
    cdSize = u64(rec, 40);
    cdOffset = u64(rec, 48);
  }
  if (!(cdOffset + cdSize <= src.size)) notZip(`the central directory (${cdSize} bytes at ${cdOffset}) lies outside the file of ${src.size} bytes`);
  if (count > cdSize / 46) notZip(`${count} entries cannot fit a central directory of ${cdSize} bytes`);
  if (count > NPZ_MAX_ENTRIES)
    throw new TooLargeError(`${source}: ${count} entries, more than the ${NPZ_MAX_ENTRIES} an .npz file may have`, { elements: count });
  // at most NPZ_MAX_ENTRIES entries of at most 46 + 3·65535 bytes each
  const cd = src.read(cdOffset, Math.min(cdSize, count * (46 + 3 * 65535)));
  const v = viewOf(cd);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > cd.length || v.getUint32(at, true) !== CENTRAL) notZip(`central directory entry ${i + 1} is damaged`);
    const flags = v.getUint16(at + 8, true),
      method = v.getUint16(at + 10, true),
      crc = v.getUint32(at + 16, true);
    let compressed = v.getUint32(at + 20, true),
      size = v.getUint32(at + 24, true);
    const nameLen = v.getUint16(at + 28, true),
      extraLen = v.getUint16(at + 30, true),
      commentLen = v.getUint16(at + 32, true);
    let localOffset = v.getUint32(at + 42, true);
    const end = at + 46 + nameLen + extraLen + commentLen;
    if (end > cd.length) notZip(`central directory entry ${i + 1} runs past the directory`);
    const name = new TextDecoder().decode(cd.subarray(at + 46, at + 46 + nameLen));
    // ZIP64 extended information (header id 1): the 64-bit values of the fields that are 0xFFFFFFFF, in this order
    for (let x = at + 46 + nameLen; x + 4 <= at + 46 + nameLen + extraLen;) {
      const id = v.getUint16(x, true),
        len = v.getUint16(x + 2, true);
      if (x + 4 + len > at + 46 + nameLen + extraLen) notZip(`entry ${quote(name)} has a damaged extra field`);
      if (id === 1) {
        let p = x + 4;
        const take = (): number => {
          if (p + 8 > x + 4 + len) notZip(`entry ${quote(name)} has a short ZIP64 field`);
          const n = u64(v, p);
          p += 8;
          return n;
        };
        if (size === 0xffffffff) size = take();
        if (compressed === 0xffffffff) compressed = take();
        if (localOffset === 0xffffffff) localOffset = take();
      }
      x += 4 + len;
    }
    entries.push({ name, method, flags, crc, compressed, size, localOffset });
    at = end;
  }
  return entries;
}

const viewOf = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

function u32At(src: ByteSource, at: number): number {
  const b = src.read(at, 4);
  return b.length === 4 ? viewOf(b).getUint32(0, true) : -1;
}

/** Where an entry's (compressed) bytes lie in the file, after its local header; checks method, encryption and bounds. */
function entryData(src: ByteSource, e: ZipEntry, source: string): { start: number } {
  const where = `${source}: entry ${quote(e.name)}`;
  if (e.flags & 1) throw new DataError(`${where} is encrypted`);
  if (e.method !== 0 && e.method !== 8)
    throw new DataError(
      `${where} uses compression method ${e.method}; paralens reads stored (0) and deflated (8) entries, as np.savez and np.savez_compressed write them`,
    );
  if (e.size > NPZ_MAX_ENTRY_BYTES) throw new TooLargeError(`${where} declares ${e.size} bytes, more than the limit ${NPZ_MAX_ENTRY_BYTES}`, { bytes: e.size });
  if (!(e.localOffset + 30 <= src.size) || u32At(src, e.localOffset) !== LOCAL) throw new DataError(`${where}: no local header at offset ${e.localOffset}`);
  const local = viewOf(src.read(e.localOffset, 30));
  const start = e.localOffset + 30 + local.getUint16(26, true) + local.getUint16(28, true);
  if (!(start + e.compressed <= src.size)) throw new DataError(`${where}: ${e.compressed} bytes at offset ${start} run past the end of the file (truncated?)`);
  if (e.method === 0 && e.compressed !== e.size) throw new DataError(`${where} is stored but its sizes differ (${e.compressed} and ${e.size})`);
  const cap = inflateCap(e.compressed, NPZ_MAX_ENTRY_BYTES);
  if (e.method === 8 && e.size > cap) throw inflateRefusal(where, e.compressed, cap, NPZ_MAX_ENTRY_BYTES);
  return { start };
}

function entryBytes(src: ByteSource, e: ZipEntry, at: { start: number }, source: string, inflateRaw: InflateRaw): Uint8Array {
  const where = `${source}: entry ${quote(e.name)}`;
  const raw = src.read(at.start, e.compressed);
  let data: Uint8Array;
  if (e.method === 0) data = raw;
  else {
    try {
      data = inflateRaw(raw, e.size);
    } catch (err) {
      throw new DataError(`${where}: cannot inflate (${clip((err as Error).message, 120)}); it is damaged or larger than the ${e.size} bytes it declares`);
    }
    if (data.length !== e.size) throw new DataError(`${where} inflates to ${data.length} bytes but declares ${e.size}`);
  }
  const crc = crc32(data);
  if (crc !== e.crc) throw new DataError(`${where}: CRC-32 ${hex(crc)} does not match the recorded ${hex(e.crc)} (the file is damaged)`);
  return data;
}

const hex = (n: number): string => n.toString(16).padStart(8, '0');

let table: Uint32Array | undefined;

/** CRC-32 (IEEE 802.3, as zip uses it). */
export function crc32(data: Uint8Array): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = table[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
