import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DataError } from '../../src/index.js';
import { decodeIdx, FASHION_MNIST_CLASSES, IDX_MAX_ELEMENTS, idxDataset, parseIdx } from '../../src/data/index.js';
import { loadFashionMnist } from '../../src/data/node.js';
import { idxBytes, removeTinyFashion, writeTinyFashion } from './idx-files.js';

describe('IDX parsing', () => {
  it('reads magic, type and big-endian dimensions', () => {
    const a = parseIdx(idxBytes([2, 3], [1, 2, 3, 4, 5, 255]));
    expect(a.type).toBe('uint8');
    expect(a.dims).toEqual([2, 3]);
    expect(Array.from(a.data)).toEqual([1, 2, 3, 4, 5, 255]);
    // int32 big-endian body
    const b = new Uint8Array([0, 0, 0x0c, 1, 0, 0, 0, 2, 0, 0, 1, 0, 0xff, 0xff, 0xff, 0xfe]);
    expect(Array.from(parseIdx(b).data)).toEqual([256, -2]);
    // float32 body
    const f = new Uint8Array(12);
    f.set([0, 0, 0x0d, 1, 0, 0, 0, 1]);
    new DataView(f.buffer).setFloat32(8, 1.5, false);
    expect(Array.from(parseIdx(f).data)).toEqual([1.5]);
  });

  it('round-trips random uint8 arrays, gzipped or not (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }), fc.boolean(), async (dims, gz) => {
        const n = dims.reduce((a, b) => a * b, 1);
        const body = Array.from({ length: n }, (_, i) => (i * 37) % 256);
        const raw = idxBytes(dims, body);
        const a = await decodeIdx(gz ? gzipSync(raw) : raw);
        expect(a.dims).toEqual(dims);
        expect(Array.from(a.data)).toEqual(body);
      }),
      { numRuns: 30 },
    );
  });

  it('refuses bad magic, unknown types, truncated files, trailing bytes and absurd sizes with DataErrors', async () => {
    expect(() => parseIdx(new Uint8Array([1, 2, 8, 1, 0, 0, 0, 1, 5]))).toThrow(/not an IDX file.*01 02 08 01/);
    expect(() => parseIdx(new Uint8Array([0, 0, 0x42, 1, 0, 0, 0, 1, 5]))).toThrow(/unknown IDX element type 0x42/);
    expect(() => parseIdx(new Uint8Array([0, 0, 8, 3, 0, 0]))).toThrow(/truncated IDX header/);
    expect(() => parseIdx(idxBytes([4, 4], [1, 2, 3]))).toThrow(/truncated IDX file: dimensions \[4,4\] need 28 bytes but the file has 15/);
    expect(() => parseIdx(idxBytes([2], [1, 2, 3]))).toThrow(/size mismatch.*trailing/);
    expect(() => parseIdx(idxBytes([65536, 65536], []))).toThrow(new RegExp(`more than the limit ${IDX_MAX_ELEMENTS}`));
    expect(() => parseIdx(new Uint8Array([]), 'x.idx')).toThrow(DataError);
    const gz = gzipSync(idxBytes([3], [1, 2, 3]));
    await expect(decodeIdx(gz.subarray(0, gz.length - 6))).rejects.toThrow(DataError);
    expect(() => parseIdx(gz)).toThrow(/gzip-compressed/);
  });
});

describe('idxDataset and loadFashionMnist', () => {
  it('scales pixels to [0,1], one-hots labels, and lays out flat or as images', () => {
    const images = parseIdx(idxBytes([2, 2, 2], [0, 255, 51, 102, 1, 2, 3, 4]));
    const labels = parseIdx(idxBytes([2], [9, 0]));
    const flat = idxDataset(images, labels, { name: 't', classes: FASHION_MNIST_CLASSES });
    expect(flat.x.shape).toEqual([2, 4]);
    expect(Array.from(flat.x.data.subarray(0, 4))).toEqual([0, 1, 0.2, 0.4].map((v) => Math.fround(v)));
    expect(flat.y.shape).toEqual([2, 10]);
    expect(flat.y.data[9]).toBe(1);
    expect(flat.y.data[10]).toBe(1);
    expect(Array.from(flat.labels!)).toEqual([9, 0]);
    expect(flat.classes![9]).toBe('Ankle boot');
    expect(idxDataset(images, labels, { name: 't', classes: FASHION_MNIST_CLASSES, layout: 'image' }).x.shape).toEqual([2, 1, 2, 2]);
    expect(idxDataset(images, labels, { name: 't', classes: FASHION_MNIST_CLASSES, limit: 1 }).x.shape).toEqual([1, 4]);
    expect(() => idxDataset(images, parseIdx(idxBytes([3], [1, 2, 3])), { name: 't', classes: FASHION_MNIST_CLASSES })).toThrow(/2 images but 3 labels/);
    expect(() => idxDataset(images, parseIdx(idxBytes([2], [1, 12])), { name: 't', classes: FASHION_MNIST_CLASSES })).toThrow(/label 12 at row 2/);
    expect(() => idxDataset(labels, labels, { name: 't', classes: FASHION_MNIST_CLASSES })).toThrow(/expected images as uint8 \[N,H,W\]/);
  });

  for (const gz of [true, false]) {
    it(`reads a directory of ${gz ? 'gzipped' : 'plain'} IDX files`, () => {
      const dir = writeTinyFashion(30, gz);
      const { train, test } = loadFashionMnist({ dataDir: dir, limit: 20 });
      expect(train.x.shape).toEqual([20, 784]);
      expect(test.x.shape).toEqual([20, 784]);
      expect(train.name).toBe('fashion-mnist');
      expect(Array.from(train.labels!.subarray(0, 11))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
      expect(Math.max(...train.x.data)).toBeLessThanOrEqual(1);
      expect(loadFashionMnist({ dataDir: dir, layout: 'image' }).train.x.shape).toEqual([30, 1, 28, 28]);
    });
  }

  it('names the Debian package and --data-dir when the files are missing', () => {
    expect(() => loadFashionMnist({ dataDir: '/nonexistent/fmnist' })).toThrow(DataError);
    expect(() => loadFashionMnist({ dataDir: '/nonexistent/fmnist' })).toThrow(/dataset-fashion-mnist.*--data-dir/);
  });
});

afterAll(removeTinyFashion);
