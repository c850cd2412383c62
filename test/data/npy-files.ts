import { deflateRawSync } from 'node:zlib';
import { crc32 } from '../../src/data/npz.js';

/** A .npy file (version 1.0) holding `bytes` under the given header fields, as numpy.save writes it. */
export function npyBytes(descr: string, shape: number[], body: Uint8Array, fortran = false): Uint8Array {
  let header = `{'descr': '${descr}', 'fortran_order': ${fortran ? 'True' : 'False'}, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const out = new Uint8Array(10 + header.length + body.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0]);
  new DataView(out.buffer).setUint16(8, header.length, true);
  out.set(new TextEncoder().encode(header), 10);
  out.set(body, 10 + header.length);
  return out;
}

export const f64 = (xs: number[]): Uint8Array => new Uint8Array(Float64Array.from(xs).buffer);
export const f32 = (xs: number[]): Uint8Array => new Uint8Array(Float32Array.from(xs).buffer);
export const i64 = (xs: number[]): Uint8Array => new Uint8Array(BigInt64Array.from(xs.map(BigInt)).buffer);

/**
 * A zip archive of named entries, stored or deflated; `zip64` writes every size and offset
 * through ZIP64 extended information and ZIP64 end records (as large archives have them).
 */
export function zipBytes(entries: { name: string; data: Uint8Array; deflate?: boolean }[], zip64 = false): Uint8Array {
  const parts: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const body = e.deflate ? deflateRawSync(e.data) : e.data;
    const name = new TextEncoder().encode(e.name);
    const crc = crc32(e.data);
    const local = new Uint8Array(30 + name.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, e.deflate ? 8 : 0, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, body.length, true);
    lv.setUint32(22, e.data.length, true);
    lv.setUint16(26, name.length, true);
    local.set(name, 30);
    const extra = zip64 ? new Uint8Array(4 + 24) : new Uint8Array(0);
    if (zip64) {
      const xv = new DataView(extra.buffer);
      xv.setUint16(0, 1, true);
      xv.setUint16(2, 24, true);
      xv.setBigUint64(4, BigInt(e.data.length), true);
      xv.setBigUint64(12, BigInt(body.length), true);
      xv.setBigUint64(20, BigInt(offset), true);
    }
    const c = new Uint8Array(46 + name.length + extra.length);
    const cv = new DataView(c.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 45, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, e.deflate ? 8 : 0, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, zip64 ? 0xffffffff : body.length, true);
    cv.setUint32(24, zip64 ? 0xffffffff : e.data.length, true);
    cv.setUint16(28, name.length, true);
    cv.setUint16(30, extra.length, true);
    cv.setUint32(42, zip64 ? 0xffffffff : offset, true);
    c.set(name, 46);
    c.set(extra, 46 + name.length);
    central.push(c);
    parts.push(local, body);
    offset += local.length + body.length;
  }
  const cdSize = central.reduce((n, c) => n + c.length, 0);
  const tail: Uint8Array[] = [];
  if (zip64) {
    const z = new Uint8Array(56);
    const zv = new DataView(z.buffer);
    zv.setUint32(0, 0x06064b50, true);
    zv.setBigUint64(4, 44n, true);
    zv.setBigUint64(24, BigInt(entries.length), true);
    zv.setBigUint64(32, BigInt(entries.length), true);
    zv.setBigUint64(40, BigInt(cdSize), true);
    zv.setBigUint64(48, BigInt(offset), true);
    const loc = new Uint8Array(20);
    const locv = new DataView(loc.buffer);
    locv.setUint32(0, 0x07064b50, true);
    locv.setBigUint64(8, BigInt(offset + cdSize), true);
    locv.setUint32(16, 1, true);
    tail.push(z, loc);
  }
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, zip64 ? 0xffff : entries.length, true);
  ev.setUint16(10, zip64 ? 0xffff : entries.length, true);
  ev.setUint32(12, zip64 ? 0xffffffff : cdSize, true);
  ev.setUint32(16, zip64 ? 0xffffffff : offset, true);
  tail.push(end);
  const all = [...parts, ...central, ...tail];
  const out = new Uint8Array(all.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of all) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
