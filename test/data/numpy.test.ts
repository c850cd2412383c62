// NumPy's .npy and .npz: files the tests write byte for byte (every dtype, Fortran order, ZIP64
// records, deflated entries), files NumPy itself writes (a peer: python3-numpy), and damaged
// ones, which must be refused with a DataError before anything large is allocated.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DataError, ParalensError } from '../../src/errors.js';
import { parseNpy, NPY_MAX_ELEMENTS } from '../../src/data/npy.js';
import { crc32, NPZ_MAX_ENTRY_BYTES, parseNpz } from '../../src/data/npz.js';
import { arraysDataset } from '../../src/data/arrays.js';
import { readNpzFile } from '../../src/data/node.js';
import { cleanly, mutate, NUM_RUNS } from '../fuzz/cleanly.js';
import { needs, numpy, PYTHON } from '../peer/available.js';
import { f32, f64, i64, npyBytes, zipBytes } from './npy-files.js';

const inflate = (d: Uint8Array, max: number): Uint8Array => inflateRawSync(d, { maxOutputLength: Math.max(1, max) });

describe('.npy', () => {
  it('reads every supported dtype, little- and big-endian', () => {
    expect(Array.from(parseNpy(npyBytes('<f8', [3], f64([1.5, -2, 1e300]))).data)).toEqual([1.5, -2, 1e300]);
    expect(Array.from(parseNpy(npyBytes('<f4', [2], f32([0.25, 3]))).data)).toEqual([0.25, 3]);
    expect(Array.from(parseNpy(npyBytes('<i8', [2], i64([-7, 2 ** 40]))).data)).toEqual([-7, 2 ** 40]);
    const be = new Uint8Array(4);
    new DataView(be.buffer).setInt32(0, -123456, false);
    expect(Array.from(parseNpy(npyBytes('>i4', [1], be)).data)).toEqual([-123456]);
    const u1 = parseNpy(npyBytes('|u1', [2, 2], new Uint8Array([0, 1, 254, 255])));
    expect([u1.kind, u1.shape, Array.from(u1.data)]).toEqual(['uint8', [2, 2], [0, 1, 254, 255]]);
    expect(parseNpy(npyBytes('|b1', [3], new Uint8Array([1, 0, 1]))).kind).toBe('bool');
    const text = new Uint8Array(2 * 3 * 4);
    const tv = new DataView(text.buffer);
    [...'cat'].forEach((c, i) => tv.setUint32(4 * i, c.codePointAt(0)!, true));
    [...'ox'].forEach((c, i) => tv.setUint32(12 + 4 * i, c.codePointAt(0)!, true));
    expect(parseNpy(npyBytes('<U3', [2], text)).text).toEqual(['cat', 'ox']);
  });

  it('reads Fortran order into C order', () => {
    // [[1,2,3],[4,5,6]] stored column by column
    const a = parseNpy(npyBytes('<f8', [2, 3], f64([1, 4, 2, 5, 3, 6]), true));
    expect(a.shape).toEqual([2, 3]);
    expect(Array.from(a.data)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it.each([
    [new Uint8Array([1, 2, 3]), /not a \.npy file/],
    [npyBytes('<f8', [4], f64([1, 2])), /shape \(4\) of <f8 needs 32 bytes of data but the file has 16 \(truncated\)/],
    [npyBytes('<f8', [1], f64([1, 2])), /trailing data/],
    [npyBytes('<f2', [1], new Uint8Array(2)), /dtype '<f2' is not supported/],
    [npyBytes('|O', [1], new Uint8Array(8)), /dtype '\|O' is not supported/],
    [npyBytes('<f8', [65536, 65536], new Uint8Array(0)), new RegExp(`more than the limit ${NPY_MAX_ELEMENTS}`)],
  ])('refuses damaged or unsupported files with a DataError (%#)', (bytes, message) => {
    expect(() => parseNpy(bytes as Uint8Array, 'a.npy')).toThrow(DataError);
    expect(() => parseNpy(bytes as Uint8Array, 'a.npy')).toThrow(message as RegExp);
  });

  it('fuzz: mutated files give the same array or a typed error, never more elements than the file holds', () => {
    const good = npyBytes('<f4', [3, 2], f32([1, 2, 3, 4, 5, 6]));
    const ops = fc.array(fc.tuple(fc.nat(4), fc.nat(1 << 12), fc.nat(255)), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(ops, (o) => {
        const b = mutate(good, o);
        const r = cleanly(() => parseNpy(b));
        if (!(r instanceof ParalensError)) expect(r.data.byteLength).toBeLessThanOrEqual(b.length * 8);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('.npz', () => {
  const x = npyBytes('<f8', [4, 2], f64([0, 0, 0, 1, 1, 0, 1, 1]));
  const y = npyBytes('<i8', [4], i64([0, 1, 1, 0]));

  it.each([
    ['stored', false, false],
    ['deflated', true, false],
    ['stored, ZIP64 records', false, true],
    ['deflated, ZIP64 records', true, true],
  ])('reads %s entries from the central directory', (_, deflate, zip64) => {
    const arrays = parseNpz(
      zipBytes(
        [
          { name: 'x.npy', data: x, deflate },
          { name: 'y.npy', data: y, deflate },
        ],
        zip64,
      ),
      'a.npz',
      inflate,
    );
    expect([...arrays.keys()]).toEqual(['x', 'y']);
    expect(Array.from(arrays.get('x')!.data)).toEqual([0, 0, 0, 1, 1, 0, 1, 1]);
    expect(Array.from(arrays.get('y')!.data)).toEqual([0, 1, 1, 0]);
  });

  it('checks the CRC-32 of every entry', () => {
    const z = zipBytes([{ name: 'x.npy', data: x }]);
    z[40 + 20]! ^= 1; // a byte of the stored data
    expect(() => parseNpz(z, 'a.npz', inflate)).toThrow(/CRC-32 [0-9a-f]{8} does not match the recorded/);
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('refuses an entry declaring more than the limit before inflating it', () => {
    const z = zipBytes([{ name: 'x.npy', data: x, deflate: true }], true);
    // the ZIP64 uncompressed size is the first 8 bytes of the extra field of the central entry
    const view = new DataView(z.buffer);
    const cd = z.findLastIndex((_, i) => i + 4 <= z.length && view.getUint32(i, true) === 0x02014b50);
    view.setBigUint64(cd + 46 + 5 + 4, BigInt(NPZ_MAX_ENTRY_BYTES) + 1n, true);
    let inflated = 0;
    expect(() => parseNpz(z, 'a.npz', (d, m) => (inflated++, inflate(d, m)))).toThrow(/declares 2147483648 bytes, more than the limit/);
    expect(inflated).toBe(0);
  });

  it('a deflated entry that inflates beyond its declared size is refused', () => {
    const z = zipBytes([{ name: 'x.npy', data: x, deflate: true }]);
    const view = new DataView(z.buffer);
    const cd = z.findLastIndex((_, i) => i + 4 <= z.length && view.getUint32(i, true) === 0x02014b50);
    view.setUint32(cd + 24, 16, true); // declare 16 bytes uncompressed
    expect(() => parseNpz(z, 'a.npz', inflate)).toThrow(DataError);
  });

  it('fuzz: mutated archives give arrays or a typed error', () => {
    const good = zipBytes([
      { name: 'x.npy', data: x, deflate: true },
      { name: 'y.npy', data: y },
    ]);
    const ops = fc.array(fc.tuple(fc.nat(4), fc.nat(1 << 12), fc.nat(255)), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(ops, (o) => void cleanly(() => parseNpz(mutate(good, o), 'f.npz', inflate))),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('arrays as a data set', () => {
  it('8-bit x is scaled 1/255; other numbers are to be standardised; integer y are classes', () => {
    const img = arraysDataset(
      { shape: [2, 2, 2], kind: 'uint8', data: new Uint8Array([0, 255, 51, 0, 1, 2, 3, 4]) },
      { shape: [2], kind: 'int', data: new Int32Array([3, 5]) },
      { name: 'i' },
    );
    expect(img.preprocessing).toEqual({ version: 1, input: 'array', scale: 1 / 255, standardize: false, target: { task: 'classify', classes: ['3', '5'] } });
    expect(img.data.x.shape).toEqual([2, 2, 2]);
    const tab = arraysDataset(
      { shape: [3, 1], kind: 'float', data: new Float64Array([1, 2, 3]) },
      { shape: [3], kind: 'float', data: new Float64Array([0.1, 0.7, 2.5]) },
      { name: 't' },
    );
    expect(tab.preprocessing).toMatchObject({ input: 'array', scale: 1, standardize: true, target: { task: 'regress' } });
    expect(() =>
      arraysDataset({ shape: [2, 1], kind: 'float', data: new Float64Array(2) }, { shape: [3], kind: 'int', data: new Int32Array(3) }, { name: 'm' }),
    ).toThrow('m: x has 2 rows but y has 3');
    expect(() =>
      arraysDataset({ shape: [2, 1], kind: 'float', data: new Float64Array(2) }, { shape: [2], kind: 'int', data: new Int32Array([4, 4]) }, { name: 'o' }),
    ).toThrow(/o: y has one class \("4"\)/);
  });
});

describe('files NumPy writes (peer: python3-numpy)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-npz-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('np.save and np.savez(_compressed): the same values NumPy prints', (ctx) => {
    needs(ctx, numpy());
    const script = `
import json, numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(1)
x = rng.normal(size=(5, 3)).astype(np.float32)
y = np.array(['cat', 'dog', 'cat', 'emu', 'dog'])
np.savez(d + '/s.npz', x=x, y=y)
np.savez_compressed(d + '/c.npz', x=np.asfortranarray(x.astype('>f8')), y=np.arange(5, dtype=np.uint8) % 2 == 0)
print(json.dumps({'x': x.astype(float).ravel().tolist(), 'y': y.tolist()}))
`;
    const r = spawnSync(PYTHON, ['-c', script, dir], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const want = JSON.parse(r.stdout) as { x: number[]; y: string[] };
    const s = readNpzFile(join(dir, 's.npz'));
    expect(s.get('x')!.shape).toEqual([5, 3]);
    expect(Array.from(s.get('x')!.data)).toEqual(want.x);
    expect(s.get('y')!.text).toEqual(want.y);
    const c = readNpzFile(join(dir, 'c.npz'));
    Array.from(c.get('x')!.data).forEach((v, i) => expect(v).toBeCloseTo(want.x[i]!, 6));
    expect(Array.from(c.get('y')!.data)).toEqual([1, 0, 1, 0, 1]);
  });
});
