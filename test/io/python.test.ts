import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel, saveModel } from '../../src/io/node.js';
import { parseSpec, Tensor } from '../../src/index.js';
import { describeWith, python, PYTHON } from '../peer/available.js';

/**
 * Interchange with an independent implementation: a safetensors reader and writer in a few
 * lines of Python using only `struct` and `json` (no paralens code, no safetensors package).
 */

const READER = `
import json, struct, sys
raw = open(sys.argv[1], 'rb').read()
(n,) = struct.unpack('<Q', raw[:8])
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
out = {'metadata': header.pop('__metadata__', {}), 'tensors': {}}
for name, e in header.items():
    b, end = e['data_offsets']
    fmt = {'F32': 'f', 'F64': 'd'}[e['dtype']]
    count = (end - b) // struct.calcsize(fmt)
    out['tensors'][name] = {'dtype': e['dtype'], 'shape': e['shape'], 'values': list(struct.unpack('<%d%s' % (count, fmt), data[b:end]))}
print(json.dumps(out))
`;

/** Writes dense(2,3) >> tanh >> dense(3,1) with known values (one tensor F64), and prints its output on one input computed by hand. */
const WRITER = `
import json, math, struct, sys
W1 = [[0.5, -1.0], [0.25, 2.0], [-1.5, 0.75]]
b1 = [0.1, -0.2, 0.3]
W2 = [[1.0, -2.0, 0.5]]
b2 = [0.125]
tensors = [('2.bias', 'F32', [1], b2), ('0.weight', 'F32', [3, 2], [v for r in W1 for v in r]),
           ('2.weight', 'F64', [1, 3], [v for r in W2 for v in r]), ('0.bias', 'F32', [3], b1)]
header, blobs, off = {}, [], 0
for name, dt, shape, vals in tensors:
    blob = struct.pack('<%d%s' % (len(vals), 'f' if dt == 'F32' else 'd'), *vals)
    header[name] = {'dtype': dt, 'shape': shape, 'data_offsets': [off, off + len(blob)]}
    blobs.append(blob)
    off += len(blob)
header['__metadata__'] = {'spec': 'dense(2,3) >> tanh >> dense(3,1)', 'training': json.dumps({'epochs': 3})}
h = json.dumps(header).encode()
with open(sys.argv[1], 'wb') as f:
    f.write(struct.pack('<Q', len(h)) + h + b''.join(blobs))
x = [0.3, -0.7]
hid = [math.tanh(sum(W1[i][j] * x[j] for j in range(2)) + b1[i]) for i in range(3)]
print(json.dumps(sum(W2[0][i] * hid[i] for i in range(3)) + b2[0]))
`;

const dir = mkdtempSync(join(tmpdir(), 'paralens-py-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWith(python(), 'safetensors interchange with an independent Python reader/writer', () => {
  it('Python reads a paralens file: names, shapes, values, metadata', async () => {
    const m = parseSpec('dense(3,4) >> relu >> (dense(2,2) @ dense(2,1)) >> softmax');
    const theta = m.init(11);
    theta[1]!.data.set([0.5, -0.25, 1, 2]);
    const path = join(dir, 'm.safetensors');
    await saveModel(path, m, theta, { epochs: 12, lr: 0.05 });
    const r = spawnSync(PYTHON, ['-c', READER, path], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const got = JSON.parse(r.stdout) as { metadata: Record<string, string>; tensors: Record<string, { dtype: string; shape: number[]; values: number[] }> };
    expect(got.metadata.spec).toBe(String(m));
    expect(JSON.parse(got.metadata.training!)).toEqual({ epochs: 12, lr: 0.05 });
    expect(Object.keys(got.tensors).sort()).toEqual(m.params.map((p) => p.name).sort());
    expect(Object.keys(got.tensors)).toContain('2.1.weight');
    m.params.forEach((p, i) => {
      const t = got.tensors[p.name]!;
      expect(t.dtype).toBe('F32');
      expect(t.shape).toEqual([...p.shape]);
      expect(t.values).toEqual(Array.from(theta[i]!.data));
    });
  });

  it('paralens loads a file written by Python and computes what Python computes', async () => {
    const path = join(dir, 'py.safetensors');
    const r = spawnSync(PYTHON, ['-c', WRITER, path], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const expected = JSON.parse(r.stdout) as number;
    const { model, theta, settings } = await loadModel(path);
    expect(String(model)).toBe('dense(2,3) >> tanh >> dense(3,1)');
    expect(settings).toEqual({ epochs: 3 });
    expect(Array.from(theta[0]!.data)).toEqual([0.5, -1, 0.25, 2, -1.5, 0.75]);
    expect(theta[2]!.dtype).toBe('float64');
    const y = model.run(theta, Tensor.from([[0.3, -0.7]]));
    expect(Math.abs(y.data[0]! - expected)).toBeLessThan(1e-6);
  });
});

describe('model files on disk', () => {
  const m = parseSpec('dense(2,2) >> sigmoid');

  it('a failed save leaves an existing file intact and no temporary file behind', async () => {
    const path = join(dir, 'keep.safetensors');
    await saveModel(path, m, m.init(1));
    const before = readFileSync(path);
    await expect(saveModel(path, m, m.init(1).slice(1))).rejects.toThrow(/parameter tensors/);
    await expect(saveModel(path, parseSpec('dense(2,3)'), m.init(2))).rejects.toThrow();
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout).not.toMatch(/\.tmp/);
  });

  it('a save into a missing directory fails with a DataError', async () => {
    await expect(saveModel(join(dir, 'no/such/dir/m.safetensors'), m, m.init(1))).rejects.toThrow(/cannot write .*m.safetensors: directory .* does not exist/);
  });

  it('a corrupt file on disk is refused before its data is read', async () => {
    const path = join(dir, 'bad.safetensors');
    const huge = new Uint8Array(16);
    new DataView(huge.buffer).setUint32(4, 0x10, true); // header length 2^36
    writeFileSync(path, huge);
    await expect(loadModel(path)).rejects.toThrow(/absurdly large/);
    writeFileSync(path, new Uint8Array([1, 2, 3]));
    await expect(loadModel(path)).rejects.toThrow(/shorter than the 8-byte/);
    await expect(loadModel(join(dir, 'missing.safetensors'))).rejects.toThrow(/cannot read model file .*: no such file \(ENOENT\)/);
    await expect(loadModel(dir)).rejects.toThrow(/it is a directory; expected a regular file/);
  });
});
