import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Rng } from '../../src/index.js';

/**
 * Tiny IDX files in Fashion-MNIST's layout ({train,t10k}-{images-idx3,labels-idx1}-ubyte) for
 * `--data fashion-mnist --data-dir DIR`: n 8×8 grey images whose class lights one pixel.
 */
export function writeIdx(dir: string, n: number, prefix: string, rng: Rng): void {
  const images = new Uint8Array(16 + n * 64),
    labels = new Uint8Array(8 + n);
  const head = (b: Uint8Array, rank: number, dims: number[]): void => {
    b.set([0, 0, 8, rank]);
    dims.forEach((d, i) => new DataView(b.buffer).setUint32(4 + 4 * i, d, false));
  };
  head(images, 3, [n, 8, 8]);
  head(labels, 1, [n]);
  for (let i = 0; i < n; i++) {
    const c = rng.int(10);
    labels[8 + i] = c;
    for (let p = 0; p < 64; p++) images[16 + i * 64 + p] = rng.int(60);
    images[16 + i * 64 + 9 + 4 * c] = 255;
  }
  writeFileSync(join(dir, `${prefix}-images-idx3-ubyte`), images);
  writeFileSync(join(dir, `${prefix}-labels-idx1-ubyte`), labels);
}
