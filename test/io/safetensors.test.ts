import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseSpec, Tensor, VERSION } from '../../src/index.js';
import { decodeModel, decodeSafetensors, encodeModel, encodeSafetensors, FileFormatError, MAX_HEADER_BYTES } from '../../src/io/index.js';

/** A file from a header (object or raw text) and a data section, with an optional forged length. */
export function craft(header: object | string, data: Uint8Array, length?: number): Uint8Array {
  const json = new TextEncoder().encode(typeof header === 'string' ? header : JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + data.length);
  const v = new DataView(out.buffer);
  const n = length ?? json.length;
  v.setUint32(0, n % 2 ** 32, true);
  v.setUint32(4, Math.floor(n / 2 ** 32), true);
  out.set(json, 8);
  out.set(data, 8 + json.length);
  return out;
}

const f32 = (shape: number[], begin: number): object => ({ dtype: 'F32', shape, data_offsets: [begin, begin + 4 * shape.reduce((a, b) => a * b, 1)] });

describe('safetensors bytes', () => {
  it('round-trips float32 and float64 tensors bit for bit, with metadata (property)', () => {
    const tensorArb = fc.tuple(fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }), fc.boolean(), fc.integer()).map(([shape, f64, seed]) => {
      const t = Tensor.zeros(shape, f64 ? 'float64' : 'float32');
      for (let i = 0; i < t.size; i++) t.data[i] = Math.sin(seed + i * 12.9898) * 1e3;
      return t;
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s !== '__metadata__'),
          { maxLength: 5 },
        ),
        fc.array(tensorArb, { minLength: 5, maxLength: 5 }),
        fc.dictionary(fc.string(), fc.string()),
        (names, ts, meta) => {
          const named = names.map((name, i) => ({ name, tensor: ts[i]! }));
          const bytes = encodeSafetensors(named, meta);
          const headerLen = new DataView(bytes.buffer).getUint32(0, true);
          expect(headerLen % 8).toBe(0);
          const { tensors, metadata } = decodeSafetensors(bytes);
          expect(metadata).toEqual(Object.keys(meta).length ? meta : {});
          expect([...tensors.keys()].sort()).toEqual([...names].sort());
          for (const { name, tensor } of named) {
            const back = tensors.get(name)!;
            expect(back.dtype).toBe(tensor.dtype);
            expect([...back.shape]).toEqual([...tensor.shape]);
            expect(Array.from(back.data)).toEqual(Array.from(tensor.data));
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('every truncation of a valid file is refused with a FileFormatError (property)', () => {
    const m = parseSpec('dense(3,4) >> tanh >> dense(4,2)');
    const bytes = encodeModel(m, m.init(3));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: bytes.length - 1 }), (n) => {
        expect(() => decodeModel(bytes.subarray(0, n))).toThrow(FileFormatError);
      }),
      { numRuns: 200 },
    );
  });
});

describe('model files', () => {
  const m = parseSpec('dense(2,3) >> sigmoid >> dense(3,1)');
  const theta = m.init(7);

  it('records spec, version, input shape and training settings in __metadata__ and loads back', () => {
    const bytes = encodeModel(m, theta, { epochs: 5, lr: 0.1, classes: ['0', '1'] });
    const file = decodeModel(bytes);
    expect(file.metadata).toMatchObject({ format: 'paralens', spec: String(m), paralens_version: VERSION, input_shape: '[2]' });
    expect(file.settings).toEqual({ epochs: 5, lr: 0.1, classes: ['0', '1'] });
    expect(String(file.model)).toBe(String(m));
    file.theta.forEach((t, i) => expect(Array.from(t.data)).toEqual(Array.from(theta[i]!.data)));
    const x = Tensor.from([
      [0.5, -1],
      [2, 3],
    ]);
    expect(Array.from(file.model.run(file.theta, x).data)).toEqual(Array.from(m.run(theta, x).data));
  });

  it('keeps the input shape of a shape-polymorphic spec (conv)', () => {
    const c = parseSpec('conv2d(1,2,3) >> relu >> flatten').at([1, 5, 5]);
    const file = decodeModel(encodeModel(c, c.init(0)));
    expect(file.model.dom).toEqual([1, 5, 5]);
    expect(file.model.cod).toEqual([18]);
  });

  it('refuses to save θ that does not fit the model, or a spec that does not parse back', () => {
    expect(() => encodeModel(m, theta.slice(1))).toThrow(/3 were given/);
    expect(() => encodeModel(m, [theta[1]!, theta[0]!, theta[2]!, theta[3]!])).toThrow(/shape/);
  });

  const data = new Uint8Array(4 * (6 + 3 + 3 + 1));
  const good = {
    __metadata__: { spec: String(m) },
    '0.weight': f32([3, 2], 0),
    '0.bias': f32([3], 24),
    '2.weight': f32([1, 3], 36),
    '2.bias': f32([1], 48),
  };
  const cases: [string, Uint8Array, RegExp][] = [
    ['the crafted good file loads', craft(good, data), /^$/],
    ['shorter than 8 bytes', new Uint8Array(5), /shorter than the 8-byte/],
    ['header length beyond the file', craft(good, data, 10_000), /beyond the end of the file/],
    ['absurd header length', craft(good, data, 2 ** 40), /absurdly large/],
    ['header length just above the cap', craft(good, data, MAX_HEADER_BYTES + 1), /absurdly large/],
    ['header is not JSON', craft('{"0.weight": nope', data), /not JSON/],
    ['header is a JSON list', craft('[1,2,3]', data), /JSON object/],
    ['truncated data', craft(good, data.subarray(0, 40)), /truncated/],
    ['overlapping offsets', craft({ ...good, '0.bias': { dtype: 'F32', shape: [3], data_offsets: [20, 32] } }, data), /bytes|overlap/],
    ['overlapping tensors of the right sizes', craft({ ...good, '0.bias': f32([3], 0), '2.weight': f32([1, 3], 24) }, new Uint8Array(4 * 13)), /overlap/],
    ['offsets out of order', craft({ ...good, '0.bias': { dtype: 'F32', shape: [3], data_offsets: [36, 24] } }, data), /out of order/],
    ['a gap between tensors', craft({ ...good, '2.bias': f32([1], 52) }, new Uint8Array(56)), /belong to no tensor/],
    ['shape disagrees with the spec', craft({ ...good, '0.weight': f32([2, 3], 0) }, data), /shape \[2,3\] but .* needs \[3,2\]/],
    ['shape disagrees with its bytes', craft({ ...good, '0.bias': { dtype: 'F32', shape: [4], data_offsets: [24, 36] } }, data), /needs 16 bytes/],
    ['unsupported dtype', craft({ ...good, '2.bias': { dtype: 'I64', shape: [1], data_offsets: [48, 52] } }, data), /dtype 'I64'/],
    ['unknown dtype', craft({ ...good, '2.bias': { dtype: 'Q7', shape: [1], data_offsets: [48, 52] } }, data), /not a safetensors dtype/],
    ['missing tensor', craft({ ...good, '2.bias': undefined }, data.subarray(0, 48)), /missing 2\.bias/],
    ['extra tensor', craft({ ...good, extra: f32([1], 52) }, new Uint8Array(56)), /unexpected extra/],
    ['no spec', craft({ ...good, __metadata__: {} }, data), /no 'spec'/],
    ['spec does not parse', craft({ ...good, __metadata__: { spec: 'dense(2,3) >> frobnicate' } }, data), /does not parse/],
    ['metadata value not a string', craft({ ...good, __metadata__: { spec: String(m), epochs: 5 } }, data), /must be a string/],
    ['negative shape', craft({ ...good, '0.bias': { dtype: 'F32', shape: [-3], data_offsets: [24, 36] } }, data), /non-negative/],
  ];
  for (const [name, bytes, msg] of cases) {
    it(`corrupt file: ${name}`, () => {
      if (msg.source === '^$') {
        expect(decodeModel(bytes).theta.length).toBe(4);
        return;
      }
      let err: unknown;
      try {
        decodeModel(bytes);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FileFormatError);
      expect((err as Error).message).toMatch(msg);
      expect((err as FileFormatError).usage).toBe(true);
    });
  }
});
