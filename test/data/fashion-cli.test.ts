import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/run.js';
import { layoutFor } from '../../src/cli/data.js';
import { parseSpec } from '../../src/index.js';
import { writeTinyFashion } from './idx-files.js';

function capture(): { io: { out: (s: string) => void; err: (s: string) => void; errIsTTY: boolean }; out: string[]; err: string[] } {
  const out: string[] = [], err: string[] = [];
  return { io: { out: (s) => out.push(s), err: (s) => err.push(s), errIsTTY: false }, out, err };
}

describe('paralens train --data fashion-mnist', () => {
  it('trains an MLP on the training files and reports accuracy on the t10k files', async () => {
    const dir = writeTinyFashion(100, true);
    const c = capture();
    const code = await run(['train', '--model', 'dense(784,32) >> relu >> dense(32,10)', '--data', 'fashion-mnist', '--data-dir', dir, '--epochs', '15', '--batch', '20', '--lr', '0.1', '--json'], c.io);
    expect(code, c.err.join('')).toBe(0);
    const r = JSON.parse(c.out.join(''));
    expect(r.data).toBe('fashion-mnist');
    expect(r.test_accuracy).toBeGreaterThan(0.9);
  });

  it('feeds [1,28,28] images to a model that starts with a convolution', async () => {
    const dir = writeTinyFashion(40, false);
    const c = capture();
    const spec = 'conv2d(1,4,3,1,1) >> relu >> maxpool2d(4) >> flatten >> dense(196,10)';
    const code = await run(['train', '--model', spec, '--data', 'fashion-mnist', '--data-dir', dir, '--epochs', '2', '--batch', '10', '--json'], c.io);
    expect(code, c.err.join('')).toBe(0);
    expect(JSON.parse(c.out.join('')).test_accuracy).toBeGreaterThanOrEqual(0);
    expect(layoutFor(parseSpec(spec), 784)).toBe('image');
    expect(layoutFor(parseSpec('dense(784,10)'), 784)).toBe('flat');
    expect(layoutFor(parseSpec('relu >> dense(784,10)'), 784)).toBe('flat');
  });

  it('exits 2 with one line naming the Debian package when the directory has no files', async () => {
    const c = capture();
    const code = await run(['train', '--model', 'dense(784,10)', '--data', 'fashion-mnist', '--data-dir', '/nonexistent/fmnist'], c.io);
    expect(code).toBe(2);
    const msg = c.err.join('');
    expect(msg).toMatch(/dataset-fashion-mnist/);
    expect(msg).toMatch(/--data-dir/);
    expect(msg.trim().split('\n')).toHaveLength(1);
  });
});
