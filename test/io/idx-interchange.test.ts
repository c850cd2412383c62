import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/index.js';
import { decodeModel } from '../../src/io/index.js';
import { saveModel } from '../../src/io/node.js';
import { cli } from '../cli/helpers.js';
import { writeIdx } from './idx-files.js';

/**
 * Issue 29, point 8: the interchange defects of IDX data. A model file whose classes are
 * names (Fashion-MNIST's) read against an IDX directory's numeric labels; a model trained on
 * idx:DIR exported to PyTorch and train.py's trained.safetensors are in
 * idx-interchange.full.test.ts (they run PyTorch).
 */
const dir = mkdtempSync(join(tmpdir(), 'paralens-idx-interchange-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const data = join(dir, 'idx');
const SPEC = 'conv2d(1,4,3,1,1) >> relu >> flatten >> dense(256,10)';

beforeAll(() => {
  mkdirSync(data);
  const rng = new Rng(5);
  writeIdx(data, 200, 'train', rng);
  writeIdx(data, 40, 't10k', rng);
});

/** Trains SPEC on the IDX files (as fashion-mnist, whose classes are names, or as idx:DIR) and saves it. */
async function trained(name: string, source: 'fashion-mnist' | 'idx'): Promise<string> {
  const file = join(dir, `${name}.safetensors`);
  const where = source === 'idx' ? ['--data', `idx:${data}`] : ['--data', 'fashion-mnist', '--data-dir', data];
  const t = await cli('train', '--model', SPEC, ...where, '--epochs', '8', '--batch', '20', '--optimizer', 'adam', '--lr', '0.01', '--save', file);
  expect(t.code, t.err).toBe(0);
  return file;
}

describe('predict --data idx:DIR on a model file whose classes are names (issue 29, point 8)', () => {
  it('names the numeric labels by the file classes: the accuracy is the one with the preprocessing, not 0', async () => {
    const file = await trained('names', 'fashion-mnist');
    const withPre = await cli('predict', '--load', file, '--data', `idx:${data}`, '--json');
    expect(withPre.code, withPre.err).toBe(0);
    const accuracy = withPre.json().accuracy as number;
    expect(accuracy).toBeGreaterThan(0.5);
    // the same model as train.py wrote it before it carried the preprocessing: spec, settings (classes named), no preprocessing
    const m = decodeModel(readFileSync(file));
    const bare = join(dir, 'bare.safetensors');
    await saveModel(bare, m.model, m.theta, m.settings);
    expect(decodeModel(readFileSync(bare)).preprocessing).toBeUndefined();
    const p = await cli('predict', '--load', bare, '--data', `idx:${data}`, '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().scaling).toBe('÷255 (pixels to [0,1])');
    expect(p.json().accuracy).toBe(accuracy);
  }, 60_000);
});
