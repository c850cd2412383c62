import { openRegularFile } from '../../data/node-file.js';
import { ParalensError } from '../../errors.js';
import { scanOnnx } from './scan.js';
import type { ByteSource } from './scan.js';

/**
 * Reads an ONNX file for import (Node only): its type checked before it is opened (a FIFO would
 * block the open for ever, a device can be endless: data/node-file.ts), then the scan of
 * src/io/onnx/scan.ts over the file, piece by piece — a file over a limit or not a model (a
 * sparse file of zeros, a truncated one, 2 million empty nodes) is refused having read what it
 * takes to tell, not the whole file — then the bytes.
 */
export function readOnnxFile(path: string): Uint8Array {
  const f = openRegularFile(path);
  try {
    const size = f.size;
    const src: ByteSource = { size, read: (position, length) => f.read(position, Math.max(0, Math.min(length, size - position))) };
    try {
      scanOnnx(src);
    } catch (e) {
      if (e instanceof ParalensError) throw Object.assign(e, { message: `${path}: ${e.message}` });
      throw e;
    }
    return f.read(0, size);
  } finally {
    f.close();
  }
}
