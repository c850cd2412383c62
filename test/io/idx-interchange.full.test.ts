import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { decodeModel } from '../../src/io/index.js';
import { cli } from '../cli/helpers.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';
import { idxInterchange } from './idx-interchange-fixture.js';

/**
 * Issue 29, point 8: the interchange defects of IDX data. A model file whose classes are
 * names (Fashion-MNIST's) read against an IDX directory's numeric labels; a model trained on
 * idx:DIR exported to PyTorch (train.py must find the data); and train.py's
 * trained.safetensors, which must carry the model file's preprocessing (÷255) back.
 */
const { dir, data, trained } = idxInterchange();

describeWith(pytorch(), 'train.py and IDX files: the data recorded, the preprocessing carried both ways (issue 29, point 8)', () => {
  function python(args: string[]): { stdout: string; stderr: string } {
    const r = spawnSync(PYTHON, args, { encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0) throw new Error(`python3 ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
    return r;
  }

  it('a model trained on idx:DIR exports a train.py that reads that directory, and predict --data idx:DIR agrees with its test accuracy', async () => {
    const file = await trained('idx', 'idx');
    const project = join(dir, 'idx-torch');
    // export reads only what its command line names (issue 32, item 1): the directory is given again
    const e = await cli('export', '--format', 'pytorch', '--load', file, '--out', project, '--data', `idx:${data}`, '--json');
    expect(e.code, e.err).toBe(0);
    expect(e.json().data).toMatchObject({ kind: 'idx', train: ['train-images-idx3-ubyte', 'train-labels-idx1-ubyte'] });
    const out = join(project, 'trained.safetensors');
    const r = JSON.parse(
      python([join(project, 'train.py'), '--epochs', '2', '--processes', '1', '--json'])
        .stdout.trim()
        .split('\n')
        .pop()!,
    );
    expect(r.test_accuracy).toBeGreaterThan(0.5);
    const back = decodeModel(readFileSync(out));
    expect(back.preprocessing).toEqual(decodeModel(readFileSync(file)).preprocessing);
    const p = await cli('predict', '--load', out, '--data', `idx:${data}`, '--json');
    expect(p.code, p.err).toBe(0);
    expect(Math.abs(p.json().accuracy - r.test_accuracy)).toBeLessThanOrEqual(1 / 40);
  }, 180_000);

  it('trained.safetensors keeps the ÷255: raw grey levels in a CSV score what PyTorch scored; trained on --data FILE it says it records none', async () => {
    const file = await trained('fm', 'fashion-mnist');
    const project = join(dir, 'fm-torch');
    expect((await cli('export', '--format', 'pytorch', '--load', file, '--out', project, '--data', 'fashion-mnist', '--data-dir', data)).code).toBe(0);
    const r = JSON.parse(
      python([join(project, 'train.py'), '--epochs', '2', '--processes', '1', '--json'])
        .stdout.trim()
        .split('\n')
        .pop()!,
    );
    const out = join(project, 'trained.safetensors');
    expect(decodeModel(readFileSync(out)).preprocessing).toMatchObject({ input: 'array', scale: 1 / 255, standardize: false });
    // the test images as a CSV of raw grey levels 0…255 and class names, as docs/scale.md writes it
    const images = readFileSync(join(data, 't10k-images-idx3-ubyte')).subarray(16),
      labels = readFileSync(join(data, 't10k-labels-idx1-ubyte')).subarray(8);
    const names = decodeModel(readFileSync(file)).settings.classes as string[];
    const csv = join(dir, 'test.csv');
    writeFileSync(csv, Array.from(labels, (c, k) => `${Array.from(images.subarray(64 * k, 64 * k + 64)).join(',')},${names[c]}\n`).join(''));
    const p = await cli('predict', '--load', out, '--csv', csv, '--json');
    expect(p.code, p.err).toBe(0);
    expect(Math.abs(p.json().accuracy - r.test_accuracy)).toBeLessThanOrEqual(1 / 40);
    // rows of its own: train.py cannot know how they were prepared, and says so
    const rows = join(dir, 'rows.safetensors');
    python([
      '-c',
      `import sys, torch; sys.path.insert(0, ${JSON.stringify(project)}); import model
model.write_safetensors(${JSON.stringify(rows)}, {'x_train': torch.rand(20, 1, 8, 8), 'y_train': torch.eye(10)[torch.arange(20) % 10]})`,
    ]);
    const other = join(project, 'other.safetensors');
    const w = python([join(project, 'train.py'), '--epochs', '1', '--processes', '1', '--data', rows, '--out', other]);
    expect(w.stderr).toMatch(/records no preprocessing/);
    expect(decodeModel(readFileSync(other)).preprocessing).toBeUndefined();
  }, 180_000);
});
