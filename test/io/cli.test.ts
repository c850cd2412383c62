import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeModel } from '../../src/io/index.js';
import { cli } from '../cli/helpers.js';
import { itWith, onnxRuntime } from '../peer/available.js';

const { peer: runtime } = await onnxRuntime();

const dir = mkdtempSync(join(tmpdir(), 'paralens-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'xor.safetensors');

describe('paralens train --save, predict, export', () => {
  it('train --save writes a model file with the spec and settings', async () => {
    const r = await cli('train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'xor', '--epochs', '400', '--lr', '0.5', '--save', file, '--json');
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out);
    expect(o.saved).toBe(file);
    const m = decodeModel(readFileSync(file));
    expect(m.metadata.spec).toBe('dense(2,4) >> tanh >> dense(4,1)');
    expect(m.settings).toMatchObject({ data: 'xor', loss: 'bce', epochs: 400, lr: 0.5, classes: ['0', '1'] });
    expect(o.file_bytes).toBe(readFileSync(file).length);
  });

  it('train --save into a missing directory fails before training, exit 2', async () => {
    const r = await cli('train', '--model', 'dense(2,1)', '--data', 'xor', '--save', join(dir, 'nope', 'm.safetensors'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/does not exist/);
  });

  it('predict --input prints outputs and classes; --json gives one object', async () => {
    const t = await cli('predict', '--load', file, '--input', '0,0;0,1;1,0;1,1');
    expect(t.code, t.err).toBe(0);
    expect(t.out).toMatch(/row\s+output\s+class/);
    const r = await cli('predict', '--load', file, '--input', '0,0;0,1;1,0;1,1', '--json');
    const o = JSON.parse(r.out);
    expect(o.rows).toBe(4);
    expect(o.outputs).toHaveLength(4);
    expect(o.classes).toEqual(['0', '1', '1', '0']);
    // bce on logits: p is σ(z) for class 1 and 1 − σ(z) for class 0
    o.probability.forEach((p: number, i: number) => {
      const s = 1 / (1 + Math.exp(-o.outputs[i][0]));
      expect(p).toBeCloseTo(o.classes[i] === '1' ? s : 1 - s, 12);
      expect(p).toBeGreaterThan(0.5);
    });
    expect(r.out.trim().split('\n')).toHaveLength(1);
  });

  it('predict --csv with a label column reports accuracy', async () => {
    const csv = join(dir, 'xor.csv');
    writeFileSync(csv, 'x1,x2,label\n0,0,0\n0,1,1\n1,0,1\n1,1,0\n');
    const r = await cli('predict', '--load', file, '--csv', csv, '--json');
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out).accuracy).toBe(1);
    writeFileSync(csv, '0,0\n1,1\n');
    expect(JSON.parse((await cli('predict', '--load', file, '--csv', csv, '--json')).out).rows).toBe(2);
  });

  it('predict and export: bad input is exit 2 with one line', async () => {
    for (const args of [
      ['predict', '--load', file, '--input', '0,0,1'],
      ['predict', '--load', file, '--input', '0,x'],
      ['predict', '--load', file],
      ['predict', '--input', '0,0'],
      ['predict', '--load', join(dir, 'missing.safetensors'), '--input', '0,0'],
      ['predict', '--load', file, '--csv', join(dir, 'missing.csv')],
      ['export', '--load', file, '--onnx', file],
      ['export', '--load', file, '--onnx', join(dir, 'no', 'dir', 'x.onnx')],
      ['export', '--load', file, '--onnx', join(dir, 'x.onnx'), '--input-shape', '2,x'],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a corrupt model file is refused with exit 2 by predict and export', async () => {
    const bytes = readFileSync(file);
    const bad = join(dir, 'bad.safetensors');
    const corruptions: [string, Uint8Array][] = [
      ['truncated', bytes.subarray(0, bytes.length - 3)],
      [
        'header length beyond the file',
        (() => {
          const b = Buffer.from(bytes);
          b.writeUInt32LE(bytes.length, 0);
          return b;
        })(),
      ],
      [
        'not JSON',
        (() => {
          const b = Buffer.from(bytes);
          b[8] = 0x21;
          return b;
        })(),
      ],
    ];
    for (const [what, b] of corruptions) {
      writeFileSync(bad, b);
      const p = await cli('predict', '--load', bad, '--input', '0,0', '--json');
      expect(p.code, what).toBe(2);
      expect(JSON.parse(p.out).error.code).toBe('E_FORMAT');
      const e = await cli('export', '--load', bad, '--onnx', join(dir, 'bad.onnx'));
      expect(e.code, what).toBe(2);
      expect(e.err).toMatch(/bad\.safetensors/);
      expect(existsSync(join(dir, 'bad.onnx'))).toBe(false);
    }
  });

  itWith(runtime, 'export --onnx --check writes a model that ONNX Runtime runs like paralens', async () => {
    const out = join(dir, 'xor.onnx');
    const r = await cli('export', '--load', file, '--onnx', out, '--check', '--json');
    expect(r.code, r.err).toBe(0);
    const o = JSON.parse(r.out);
    expect(o.check.max_abs_diff).toBeLessThanOrEqual(1e-5);
    expect(o.ops).toEqual(['Gemm', 'Tanh', 'Gemm']);
    expect(readFileSync(out).length).toBe(o.bytes);
  });

  it('export refuses a layer it cannot express: exit 2 naming the layer', async () => {
    const f = join(dir, 'equivariant.safetensors');
    const t = await cli('train', '--model', 'dense(2,4) >> tanh >> equivariant(S(4),V,V) >> dense(4,1)', '--data', 'xor', '--epochs', '2', '--save', f);
    expect(t.code, t.err).toBe(0);
    const r = await cli('export', '--load', f, '--onnx', join(dir, 'b.onnx'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/equivariant\(S\(4\),V,V\)/);
  });
});
