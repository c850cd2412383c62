import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { Rng } from '../../src/index.js';
import { cli } from '../cli/helpers.js';
import { writeIdx } from './idx-files.js';

/**
 * The IDX files and the trained models of the interchange tests (issue 29, point 8), shared by
 * idx-interchange.test.ts and idx-interchange.full.test.ts: a scratch directory (removed after
 * the file's tests) holding an IDX directory of 200 training and 40 test images.
 */
export function idxInterchange(): { dir: string; data: string; trained: (name: string, source: 'fashion-mnist' | 'idx') => Promise<string> } {
  const dir = mkdtempSync(join(tmpdir(), 'paralens-idx-interchange-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const data = join(dir, 'idx');
  beforeAll(() => {
    mkdirSync(data);
    const rng = new Rng(5);
    writeIdx(data, 200, 'train', rng);
    writeIdx(data, 40, 't10k', rng);
  });
  /** Trains SPEC on the IDX files (as fashion-mnist, whose classes are names, or as idx:DIR) and saves it. */
  const trained = async (name: string, source: 'fashion-mnist' | 'idx'): Promise<string> => {
    const file = join(dir, `${name}.safetensors`);
    const where = source === 'idx' ? ['--data', `idx:${data}`] : ['--data', 'fashion-mnist', '--data-dir', data];
    const t = await cli('train', '--model', SPEC, ...where, '--epochs', '8', '--batch', '20', '--optimizer', 'adam', '--lr', '0.01', '--save', file);
    expect(t.code, t.err).toBe(0);
    return file;
  };
  return { dir, data, trained };
}

export const SPEC = 'conv2d(1,4,3,1,1) >> relu >> flatten >> dense(256,10)';
