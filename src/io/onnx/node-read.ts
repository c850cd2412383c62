import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { DataError, ParalensError } from '../../errors.js';
import { FileFormatError } from '../errors.js';
import { scanOnnx } from './scan.js';
import type { ByteSource } from './scan.js';

/**
 * Reads an ONNX file for import (Node only): first the scan of src/io/onnx/scan.ts over the
 * file, piece by piece — a file over a limit or not a model (a sparse file of zeros, a truncated
 * one, 2 million empty nodes) is refused having read what it takes to tell, not the whole file —
 * then the bytes.
 */
export function readOnnxFile(path: string): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new DataError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new DataError(`cannot read ${path}: not a file`);
    const size = st.size;
    const src: ByteSource = {
      size,
      read: (position, length) => {
        const buf = new Uint8Array(Math.max(0, Math.min(length, size - position)));
        const n = readSync(fd, buf, 0, buf.length, position);
        return buf.subarray(0, n);
      },
    };
    try {
      scanOnnx(src);
    } catch (e) {
      if (e instanceof ParalensError) throw Object.assign(e, { message: `${path}: ${e.message}` });
      throw e;
    }
    const bytes = new Uint8Array(size);
    for (let at = 0; at < size;) {
      const n = readSync(fd, bytes, at, size - at, at);
      if (n === 0) throw new FileFormatError(`${path}: the file shrank while it was read`);
      at += n;
    }
    return bytes;
  } finally {
    closeSync(fd);
  }
}
