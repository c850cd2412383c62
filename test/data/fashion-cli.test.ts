import { afterAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { layoutFor } from '../../src/cli/data.js';
import { parseSpec } from '../../src/index.js';
import { removeTinyFashion, writeTinyFashion } from './idx-files.js';

describe('paralens train --data fashion-mnist', () => {
  it('trains an MLP on the training files and reports accuracy on the t10k files', async () => {
    const dir = writeTinyFashion(100, true);
    const c = await cli(
      'train',
      '--model',
      'dense(784,32) >> relu >> dense(32,10)',
      '--data',
      'fashion-mnist',
      '--data-dir',
      dir,
      '--epochs',
      '15',
      '--batch',
      '20',
      '--lr',
      '0.1',
      '--json',
    );
    expect(c.code, c.err).toBe(0);
    const r = JSON.parse(c.out);
    expect(r.data).toBe('fashion-mnist');
    expect(r.test_accuracy).toBeGreaterThan(0.9);
  });

  it('feeds [1,28,28] images to a model that starts with a convolution', async () => {
    const dir = writeTinyFashion(40, false);
    const spec = 'conv2d(1,4,3,1,1) >> relu >> maxpool2d(4) >> flatten >> dense(196,10)';
    const c = await cli('train', '--model', spec, '--data', 'fashion-mnist', '--data-dir', dir, '--epochs', '2', '--batch', '10', '--json');
    expect(c.code, c.err).toBe(0);
    expect(JSON.parse(c.out).test_accuracy).toBeGreaterThanOrEqual(0);
    expect(layoutFor(parseSpec(spec), 784)).toBe('image');
    expect(layoutFor(parseSpec('dense(784,10)'), 784)).toBe('flat');
    expect(layoutFor(parseSpec('relu >> dense(784,10)'), 784)).toBe('flat');
  });

  it('exits 2 with one line naming the Debian package when the directory has no files', async () => {
    const c = await cli('train', '--model', 'dense(784,10)', '--data', 'fashion-mnist', '--data-dir', '/nonexistent/fmnist');
    expect(c.code).toBe(2);
    const msg = c.err;
    expect(msg).toMatch(/dataset-fashion-mnist/);
    expect(msg).toMatch(/--data-dir/);
    expect(msg.trim().split('\n')).toHaveLength(1);
  });
});

afterAll(removeTinyFashion);
