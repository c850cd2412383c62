// Fuzzing the binary loaders: safetensors (raw and as a paralens model file) and IDX.
// The only allowed outcomes are a correct result or a typed error; never a crash, a hang,
// or an allocation larger than the input (a header must not make us allocate what the file
// does not hold).
import fc from 'fast-check';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FileFormatError } from '../../src/io/errors.js';
import { decodeModel, encodeModel } from '../../src/io/model-file.js';
import { decodeSafetensors, encodeSafetensors, MAX_HEADER_BYTES } from '../../src/io/safetensors.js';
import { decodeIdx, parseIdx } from '../../src/data/idx.js';
import { DataError, ParalensError } from '../../src/errors.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { Rng } from '../../src/random/rng.js';
import { idxBytes } from '../data/idx-files.js';
import { cleanly, cleanlyAsync, mutate, NUM_RUNS } from './cleanly.js';

const ops = fc.array(fc.tuple(fc.nat(4), fc.nat(1 << 20), fc.nat(255)), { minLength: 1, maxLength: 4 });

const model = parseSpec('dense(3,4) >> tanh >> dense(4,2)');
const theta = model.init(new Rng(1));
const modelBytes = encodeModel(model, theta, { lr: 0.1, classes: ['a', 'b'] });
const rawBytes = encodeSafetensors(
  [
    { name: 'a', tensor: Tensor.of([1, 2, 3, 4, 5, 6], [2, 3]) },
    { name: 'b', tensor: Tensor.of([0.5, -1], [2], 'float64') },
    { name: 'e', tensor: Tensor.zeros([0, 4]) },
  ],
  { note: 'x' },
);

/** Bytes read by a successful decode never exceed the input: the allocation is bounded by the file. */
function totalBytes(ts: Iterable<Tensor>): number {
  let n = 0;
  for (const t of ts) n += t.data.byteLength;
  return n;
}

/** A header length field set to `n` (u64 little-endian) in front of `rest`. */
function withHeaderLength(n: bigint, rest: Uint8Array): Uint8Array {
  const b = new Uint8Array(8 + rest.length);
  new DataView(b.buffer).setBigUint64(0, n, true);
  b.set(rest, 8);
  return b;
}

describe('fuzzing the safetensors loader', () => {
  it('random bytes: a typed error (or, rarely, a valid empty file)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (b) => {
        const r = cleanly(() => decodeSafetensors(b));
        if (!(r instanceof ParalensError)) expect(totalBytes(r.tensors.values())).toBeLessThanOrEqual(b.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('mutated valid files: the same tensors, or a typed error; never more bytes than the file', () => {
    fc.assert(
      fc.property(ops, (o) => {
        const b = mutate(rawBytes, o);
        const r = cleanly(() => decodeSafetensors(b));
        if (r instanceof ParalensError) expect(r).toBeInstanceOf(FileFormatError);
        else expect(totalBytes(r.tensors.values())).toBeLessThanOrEqual(b.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('absurd header lengths are refused before anything is allocated', () => {
    const json = new TextEncoder().encode('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}');
    const lengths = fc.oneof(
      fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
      fc.constantFrom(0n, 1n, 2n, BigInt(MAX_HEADER_BYTES) + 1n, (1n << 53n) + 1n, (1n << 64n) - 1n, 1n << 32n),
    );
    fc.assert(
      fc.property(lengths, (n) => {
        const r = cleanly(() => decodeSafetensors(withHeaderLength(n, json)));
        if (n !== BigInt(json.length)) expect(r).toBeInstanceOf(FileFormatError);
      }),
      { numRuns: NUM_RUNS },
    );
    expect(() => decodeSafetensors(withHeaderLength((1n << 64n) - 1n, json))).toThrow(/absurdly large/);
  });

  it('headers claiming huge tensors are refused: shapes and offsets must fit the file', () => {
    const dims = fc.array(fc.oneof(fc.nat(10), fc.constantFrom(2 ** 31, 2 ** 40, 2 ** 53, 1e300)), { maxLength: 4 });
    fc.assert(
      fc.property(dims, fc.nat(2 ** 40), fc.constantFrom('F32', 'F64', 'I32', 'BF16', 'X'), (shape, end, dtype) => {
        const json = new TextEncoder().encode(JSON.stringify({ t: { dtype, shape, data_offsets: [0, end] } }));
        const b = withHeaderLength(BigInt(json.length), new Uint8Array([...json, 0, 0, 0, 0, 0, 0, 0, 0]));
        const r = cleanly(() => decodeSafetensors(b));
        if (!(r instanceof ParalensError)) expect(totalBytes(r.tensors.values())).toBeLessThanOrEqual(8);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('mutated model files: the same model, or a typed error naming the problem', () => {
    const good = decodeModel(modelBytes);
    expect(String(good.model)).toBe(String(model));
    fc.assert(
      fc.property(ops, (o) => {
        const b = mutate(modelBytes, o);
        const r = cleanly(() => decodeModel(b));
        if (!(r instanceof ParalensError)) {
          expect(r.theta.length).toBe(r.model.params.length);
          expect(totalBytes(r.theta)).toBeLessThanOrEqual(b.length);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('fuzzing the IDX loader', () => {
  const valid = [idxBytes([2, 3], [1, 2, 3, 4, 5, 255]), idxBytes([4], [0, 1, 2, 9]), idxBytes([1, 2, 2], new Uint8Array(16), 0x0d)];

  it('random bytes: a DataError (or a valid array no larger than the input)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        const r = cleanly(() => parseIdx(b, 'fuzz'));
        if (r instanceof ParalensError) expect(r).toBeInstanceOf(DataError);
        else expect(r.data.length).toBeLessThanOrEqual(b.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('mutated valid files and absurd dimensions', () => {
    fc.assert(
      fc.property(fc.constantFrom(...valid), ops, (v, o) => {
        const b = mutate(v, o);
        const r = cleanly(() => parseIdx(b, 'fuzz'));
        if (!(r instanceof ParalensError)) {
          expect(r.data.length).toBe(r.dims.reduce((a, d) => a * d, 1));
          expect(r.data.byteLength).toBeLessThanOrEqual(b.length);
        }
      }),
      { numRuns: NUM_RUNS },
    );
    const dims = fc.array(fc.oneof(fc.nat(5), fc.constant(0xffffffff), fc.constant(1 << 16)), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(dims, fc.constantFrom(0x08, 0x09, 0x0b, 0x0c, 0x0d, 0x0e, 0x07), (d, type) => {
        const b = idxBytes(d, new Uint8Array(8), type);
        const r = cleanly(() => parseIdx(b, 'fuzz'));
        if (!(r instanceof ParalensError)) expect(r.data.byteLength).toBeLessThanOrEqual(b.length);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('mutated gzip streams: gunzip errors are typed too', async () => {
    const gz = gzipSync(valid[0]!);
    await fc.assert(
      fc.asyncProperty(ops, async (o) => {
        await cleanlyAsync(() => decodeIdx(mutate(gz, o), 'fuzz.gz'));
      }),
      { numRuns: Math.min(NUM_RUNS, 300) },
    );
  });
});
