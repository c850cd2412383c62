import { DataError } from '../errors.js';
import { parseNpy } from './npy.js';
import type { NdArray } from './npy.js';

/**
 * NumPy's .npz: a zip archive of .npy files, one per array (np.savez stores them, np.savez_
 * compressed deflates them). Read from the central directory at the end of the archive
 * (APPNOTE.TXT §4.3.12–16, with the ZIP64 records numpy writes for large arrays): every
 * entry's offsets, sizes and method are checked against the file and against
 * NPZ_MAX_ENTRY_BYTES before anything is inflated, and the inflated bytes against the
 * declared size and CRC-32. Stored (0) and deflated (8) entries; `inflateRaw` is given by
 * the caller (node:zlib's inflateRawSync in Node), bounded by the declared size.
 */

/** An entry larger than this (uncompressed) is refused before it is inflated. */
export const NPZ_MAX_ENTRY_BYTES = 2 ** 31 - 1;

/** Raw-deflate decompression returning at most `maxBytes` (throwing beyond). */
export type InflateRaw = (data: Uint8Array, maxBytes: number) => Uint8Array;

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
export function parseNpz(bytes: Uint8Array, source: string, inflateRaw: InflateRaw): Map<string, NdArray> {
  const out = new Map<string, NdArray>();
  for (const e of centralDirectory(bytes, source)) {
    const name = e.name.endsWith('.npy') ? e.name.slice(0, -4) : e.name;
    out.set(name, parseNpy(entryBytes(bytes, e, source, inflateRaw), `${source}[${name}]`));
  }
  return out;
}

function u64(v: DataView, at: number): number {
  const n = v.getBigUint64(at, true);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(n);
}

function centralDirectory(bytes: Uint8Array, source: string): ZipEntry[] {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const notZip = (why: string): never => {
    throw new DataError(`${source}: not a readable .npz (zip) file: ${why}`);
  };
  // the end-of-central-directory record: 22 bytes plus a comment of up to 65535
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (v.getUint32(at, true) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) notZip('no end-of-central-directory record');
  let count = v.getUint16(eocd + 10, true),
    cdSize = v.getUint32(eocd + 12, true),
    cdOffset = v.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    const loc = eocd - 20;
    if (loc < 0 || v.getUint32(loc, true) !== ZIP64_LOCATOR) notZip('ZIP64 sizes without a ZIP64 locator');
    const z = u64(v, loc + 8);
    if (!(z + 56 <= bytes.length) || v.getUint32(z, true) !== ZIP64_EOCD) notZip('the ZIP64 end record is not where its locator says');
    count = u64(v, z + 32);
    cdSize = u64(v, z + 40);
    cdOffset = u64(v, z + 48);
  }
  if (!(cdOffset + cdSize <= bytes.length)) notZip(`the central directory (${cdSize} bytes at ${cdOffset}) lies outside the file of ${bytes.length} bytes`);
  if (count > cdSize / 46) notZip(`${count} entries cannot fit a central directory of ${cdSize} bytes`);
  const entries: ZipEntry[] = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > cdOffset + cdSize || v.getUint32(at, true) !== CENTRAL) notZip(`central directory entry ${i + 1} is damaged`);
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
    if (end > cdOffset + cdSize) notZip(`central directory entry ${i + 1} runs past the directory`);
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLen));
    // ZIP64 extended information (header id 1): the 64-bit values of the fields that are 0xFFFFFFFF, in this order
    for (let x = at + 46 + nameLen; x + 4 <= at + 46 + nameLen + extraLen;) {
      const id = v.getUint16(x, true),
        len = v.getUint16(x + 2, true);
      if (x + 4 + len > at + 46 + nameLen + extraLen) notZip(`entry '${name}' has a damaged extra field`);
      if (id === 1) {
        let p = x + 4;
        const take = (): number => {
          if (p + 8 > x + 4 + len) notZip(`entry '${name}' has a short ZIP64 field`);
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

function entryBytes(bytes: Uint8Array, e: ZipEntry, source: string, inflateRaw: InflateRaw): Uint8Array {
  const where = `${source}: entry '${e.name}'`;
  if (e.flags & 1) throw new DataError(`${where} is encrypted`);
  if (e.method !== 0 && e.method !== 8)
    throw new DataError(
      `${where} uses compression method ${e.method}; paralens reads stored (0) and deflated (8) entries, as np.savez and np.savez_compressed write them`,
    );
  if (e.size > NPZ_MAX_ENTRY_BYTES) throw new DataError(`${where} declares ${e.size} bytes, more than the limit ${NPZ_MAX_ENTRY_BYTES}`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (!(e.localOffset + 30 <= bytes.length) || v.getUint32(e.localOffset, true) !== LOCAL)
    throw new DataError(`${where}: no local header at offset ${e.localOffset}`);
  const start = e.localOffset + 30 + v.getUint16(e.localOffset + 26, true) + v.getUint16(e.localOffset + 28, true);
  if (!(start + e.compressed <= bytes.length))
    throw new DataError(`${where}: ${e.compressed} bytes at offset ${start} run past the end of the file (truncated?)`);
  const raw = bytes.subarray(start, start + e.compressed);
  let data: Uint8Array;
  if (e.method === 0) {
    if (e.compressed !== e.size) throw new DataError(`${where} is stored but its sizes differ (${e.compressed} and ${e.size})`);
    data = raw;
  } else {
    try {
      data = inflateRaw(raw, e.size);
    } catch (err) {
      throw new DataError(`${where}: cannot inflate (${(err as Error).message}); it is damaged or larger than the ${e.size} bytes it declares`);
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
