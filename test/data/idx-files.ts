import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** IDX bytes: magic 00 00 type rank, big-endian uint32 dims, then the (uint8) body. */
export function idxBytes(dims: number[], body: ArrayLike<number>, type = 0x08): Uint8Array {
  const out = new Uint8Array(4 + 4 * dims.length + body.length);
  out.set([0, 0, type, dims.length]);
  const v = new DataView(out.buffer);
  dims.forEach((d, i) => v.setUint32(4 + 4 * i, d, false));
  out.set(Array.from(body), 4 + 4 * dims.length);
  return out;
}

const written: string[] = [];

/** Removes every directory writeTinyFashion made (call from afterAll). */
export function removeTinyFashion(): void {
  for (const d of written.splice(0)) rmSync(d, { recursive: true, force: true });
}

/**
 * A tiny Fashion-MNIST-shaped directory: n 28×28 images per split whose class is written
 * in the picture (a bright block at a class-dependent row), so a model can learn it.
 */
export function writeTinyFashion(n: number, gzip: boolean, seed = 1): string {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-fmnist-'));
  written.push(dir);
  let s = seed;
  const rand = (): number => ((s = (s * 1103515245 + 12345) >>> 0) >>> 16) / 65536;
  for (const prefix of ['train', 't10k']) {
    const labels = Array.from({ length: n }, (_, i) => i % 10);
    const pixels = new Uint8Array(n * 784);
    labels.forEach((c, i) => {
      for (let p = 0; p < 784; p++) pixels[i * 784 + p] = Math.floor(rand() * 40);
      for (let r = 2 * c + 3; r < 2 * c + 5; r++) for (let col = 4; col < 24; col++) pixels[i * 784 + r * 28 + col] = 200 + Math.floor(rand() * 55);
    });
    const files: [string, Uint8Array][] = [
      [`${prefix}-images-idx3-ubyte`, idxBytes([n, 28, 28], pixels)],
      [`${prefix}-labels-idx1-ubyte`, idxBytes([n], labels)],
    ];
    for (const [name, bytes] of files) writeFileSync(join(dir, gzip ? `${name}.gz` : name), gzip ? gzipSync(bytes) : bytes);
  }
  return dir;
}
