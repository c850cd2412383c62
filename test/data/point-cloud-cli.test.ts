import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPointCloud, pointCloudDataset } from '../../src/data/point-cloud.js';
import { cli } from '../cli/helpers.js';
import { needs, numpy, PYTHON } from '../peer/available.js';

/**
 * Point clouds from the command line: an .npz whose x is [N, n, c] trains a model on [n, c] with
 * x kept as it is (not flattened, not standardised) and targets of any rank; predict reads an .npz;
 * a model fed clouds of another shape is refused naming both shapes.
 */
const MODEL = 'points_linear(5,2x0e+2x1o,8x0e+2x1o) >> attention(8x0e+2x1o,2,points(5)) >> points_linear(5,8x0e+2x1o,1x1o) >> displace(5)';

describe('point-cloud arrays', () => {
  it('are kept as they are when the model takes their sample shape, and refused naming both shapes when it takes another', () => {
    const x = { shape: [4, 5, 11], kind: 'float' as const, data: Float64Array.from({ length: 220 }, (_, i) => i) };
    expect(isPointCloud(x, [5, 11])).toBe(true);
    expect(isPointCloud(x, [55])).toBe(false); // a flat model: the arrays are flattened as before
    expect(isPointCloud({ ...x, kind: 'uint8', data: new Uint8Array(220) }, [5, 11])).toBe(false); // 8-bit arrays stay images
    // class labels make a classification set; images [N, C, H, W] stay images (issue 29's imported CNNs)
    expect(isPointCloud(x, [5, 11], 'x', { kind: 'int', shape: [4], data: new Float64Array(4) })).toBe(false);
    expect(isPointCloud({ ...x, shape: [4, 1, 5, 11] }, [1, 5, 11])).toBe(false);
    expect(() => isPointCloud(x, [7, 11], 'c.npz')).toThrow(
      'c.npz: x holds samples [5,11] (shape [4,5,11]) but the model takes [7,11] per sample (7 points, each 3 coordinates and 8 features)',
    );
    const y = { shape: [4, 5, 3], kind: 'float' as const, data: new Float64Array(60).fill(2) };
    const ds = pointCloudDataset(x, y, 'c');
    expect(ds.x.shape).toEqual([4, 5, 11]);
    expect(ds.y.shape).toEqual([4, 5, 3]);
    expect(ds.x.data[219]).toBe(219); // not standardised
    expect(pointCloudDataset(x, { shape: [4], kind: 'float', data: new Float64Array(4) }, 'c').y.shape).toEqual([4, 1]);
  });
});

describe('a point-cloud .npz written by NumPy trains and predicts from the command line (peer: python3-numpy)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-cloud-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('train reports the test MSE; predict reads the .npz; clouds of another shape exit 2 naming it', async (ctx) => {
    needs(ctx, numpy());
    const script = `
import numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(0)
x = rng.normal(size=(60, 5, 11)).astype(np.float32)
y = (x[:, :, :3] + 0.5 * x[:, :, 5:8]).astype(np.float32)   # positions moved along the first vector feature
np.savez(d + '/clouds.npz', x=x, y=y)
np.savez(d + '/inputs.npz', x=x[:7])
np.savez(d + '/wrong.npz', x=rng.normal(size=(60, 6, 11)), y=rng.normal(size=(60, 6, 3)))
`;
    const py = spawnSync(PYTHON, ['-c', script, dir], { encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const saved = join(dir, 'cloud.safetensors');
    const t = await cli(
      'train',
      '--model',
      MODEL,
      '--data',
      join(dir, 'clouds.npz'),
      '--epochs',
      '30',
      '--batch',
      '8',
      '--optimizer',
      'adam',
      '--lr',
      '0.01',
      '--save',
      saved,
      '--json',
    );
    expect(t.code, t.err).toBe(0);
    const j = t.json();
    expect(j.loss).toBe('mse');
    expect(j.rows).toEqual({ train: 48, test: 12 });
    // the target is linear in the inputs and equivariant: the model learns it
    expect(j.test_loss).toBeLessThan(0.05);
    const p = await cli('predict', '--load', saved, '--data', join(dir, 'inputs.npz'), '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().rows).toBe(7);
    expect(p.json().outputs[0]).toHaveLength(15);
    const w = await cli('train', '--model', MODEL, '--data', join(dir, 'wrong.npz'), '--epochs', '1');
    expect(w.code).toBe(2);
    expect(w.err.trim().split('\n')).toHaveLength(1);
    expect(w.err).toMatch(/x holds samples \[6,11\] \(shape \[60,6,11\]\) but the model takes \[5,11\] per sample/);
  });
});
