// Input read strictly (issue 23, "Found" 8): non-finite weights in a model file, numbers that
// overflow float32, hexadecimal and binary literals, duplicate keys in a safetensors header
// — each refused with exit 2 and a one-line message, instead of a silent Infinity or `null`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileFormatError } from '../../src/io/errors.js';
import { decodeModel, encodeModel } from '../../src/io/model-file.js';
import { decodeSafetensors } from '../../src/io/safetensors.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { cli } from '../cli/helpers.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-strict-'));
const model = join(work, 'xor.safetensors');
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(async () => {
  const r = await cli('train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'xor', '--epochs', '3', '--save', model);
  expect(r.code, r.err).toBe(0);
});

/** A header's JSON with `edit` applied to its text, re-framed (length prefix and padding) around the same data. */
function withHeaderText(bytes: Uint8Array, edit: (json: string) => string): Uint8Array {
  const n = Number(new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0, true));
  const json = new TextEncoder().encode(edit(new TextDecoder().decode(bytes.subarray(8, 8 + n)).trimEnd()));
  const out = new Uint8Array(8 + json.length + bytes.length - 8 - n);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  out.set(bytes.subarray(8 + n), 8 + json.length);
  return out;
}

describe('model files with non-finite weights are refused', () => {
  it('NaN or ±Infinity in any parameter: E_FORMAT naming the tensor (predict once printed null with a class and exit 0)', async () => {
    const m = parseSpec('dense(2,1)');
    for (const bad of [NaN, Infinity, -Infinity]) {
      const theta = m.init(1);
      theta[0]!.data[1] = bad;
      const bytes = encodeModel(m, theta);
      expect(() => decodeModel(bytes)).toThrow(new RegExp(`tensor 'weight' holds ${bad} at index 1`));
      const file = join(work, `bad-${bad}.safetensors`);
      writeFileSync(file, bytes);
      const r = await cli('predict', '--load', file, '--input', '1,2', '--json');
      expect(r.code).toBe(2);
      expect(r.json().error.code).toBe('E_FORMAT');
    }
  });
});

describe('numbers are decimal and finite in float32', () => {
  it('--input 1e39 overflows float32 and is refused (it once became +Infinity)', async () => {
    const r = await cli('predict', '--load', model, '--input', '1e39,0');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/'1e39' is outside the float32 range/);
    expect((await cli('predict', '--load', model, '--input', '3e38,-3e38')).code).toBe(0);
  });
  it('0x10, 0b11, 0o7, 1_000, Infinity are not numbers here, in --input nor in numeric flags', async () => {
    for (const v of ['0x10', '0b11', '0o7', '1_000', 'Infinity', '']) {
      const r = await cli('predict', '--load', model, '--input', `${v},0`);
      expect(r.code, v).toBe(2);
      expect(r.err).toMatch(/is not a (finite|decimal) number/);
    }
    for (const v of ['0x10', '0b11', '1e999']) {
      const r = await cli('train', '--model', 'dense(2,1)', '--data', 'xor', '--epochs', v);
      expect(r.code, v).toBe(2);
      expect(r.err).toMatch(/expects (a decimal number|an integer|a number)/);
    }
  });
});

describe('a safetensors header with a duplicate key is refused (the last one once won)', () => {
  it('duplicate tensor names, duplicate metadata keys, duplicate fields of an entry', () => {
    const bytes = new Uint8Array(readFileSync(model));
    const dupTensor = withHeaderText(bytes, (j) => j.replace(/^\{/, `{"2.bias":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},`));
    expect(() => decodeSafetensors(dupTensor)).toThrow(/duplicate key '2\.bias'/);
    const dupMeta = withHeaderText(bytes, (j) => j.replace('"__metadata__":{', '"__metadata__":{"spec":"relu",'));
    expect(() => decodeSafetensors(dupMeta)).toThrow(FileFormatError);
    expect(() => decodeSafetensors(dupMeta)).toThrow(/duplicate key 'spec'/);
    const dupField = withHeaderText(bytes, (j) => j.replace('"dtype":"F32"', '"dtype":"F64","dtype":"F32"'));
    expect(() => decodeSafetensors(dupField)).toThrow(/duplicate key 'dtype'/);
    // keys that differ only by escapes are the same key
    const escaped = withHeaderText(bytes, (j) => j.replace(/^\{/, `{"2.bia\\u0073":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},`));
    expect(() => decodeSafetensors(escaped)).toThrow(/duplicate key '2\.bias'/);
    expect(decodeSafetensors(bytes).tensors.size).toBe(4);
  });
});
