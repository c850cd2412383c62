import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closePairSets, discMajoritySets, setSizes, sizeBaseline } from '../../src/api/colimit.js';
import { cli } from '../cli/helpers.js';

describe('paralens kmeans', () => {
  it('--json prints one object with inertia, centroids, sizes, iterations', async () => {
    const r = await cli('kmeans', '--data', 'blobs', '--k', '3', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    expect(j.centroids).toHaveLength(3);
    expect([...j.sizes].sort()).toEqual([50, 50, 50]);
    expect(j.iterations).toBeGreaterThan(0);
    expect(j.inertia).toBeGreaterThan(0);
    expect(j.purity).toBe(1);
  });
  it('reads a CSV with or without a label column', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralens-km-'));
    const plain = join(dir, 'p.csv'),
      labelled = join(dir, 'l.csv');
    writeFileSync(plain, 'a,b\n0,0\n0,1\n10,10\n10,11\n');
    writeFileSync(labelled, '0,0,x\n0,1,x\n10,10,y\n10,11,y\n');
    const a = JSON.parse((await cli('kmeans', '--csv', plain, '--k', '2', '--json')).out);
    expect(a.features).toBe(2);
    expect(a.inertia).toBeCloseTo(1, 9);
    const b = JSON.parse((await cli('kmeans', '--csv', labelled, '--k', '2', '--json')).out);
    expect(b.features).toBe(2);
    expect(b.purity).toBe(1);
  });
  it('bad input exits 2 with a message', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'paralens-km-'));
    const empty = join(dir, 'e.csv'),
      nan = join(dir, 'n.csv');
    writeFileSync(empty, '\n');
    writeFileSync(nan, '1,2\nNaN,3\n4,5\n');
    for (const [args, msg] of [
      [['--data', 'xor', '--k', '5'], /k = 5 is larger than the number of points \(4\)/],
      [['--data', 'iris', '--k', '0'], /--k must be > 0/],
      [['--data', 'iris', '--k', '-2'], /--k must be > 0/],
      [['--csv', empty, '--k', '2'], /no rows/],
      [['--csv', nan, '--k', '2'], /not a finite number/],
      [['--csv', join(dir, 'missing.csv'), '--k', '2'], /cannot read/],
      [['--k', '2'], /exactly one of --data NAME or --csv FILE/],
      [['--data', 'iris'], /--k N is required/],
      [['--data', 'nope', '--k', '2'], /unknown data set 'nope'/],
    ] as [string[], RegExp][]) {
      const r = await cli('kmeans', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });
  it('--help lists the flags', async () => {
    const r = await cli('kmeans', '--help');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/--restarts/);
  });
});

describe('paralens deepsets', () => {
  it('DeepSets is invariant and beats the padded MLP on held-out sets', async () => {
    const r = await cli('deepsets', '--json', '--train-sets', '600', '--test-sets', '300', '--epochs', '25');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.deepsets.invarianceDefect).toBeLessThan(1e-5);
    expect(j.mlp.invarianceDefect).toBeGreaterThan(0.05);
    expect(j.deepsets.testAccuracy).toBeGreaterThan(j.mlp.testAccuracy);
  });
  it('is reproducible with a seed', async () => {
    const a = await cli('deepsets', '--json', '--train-sets', '200', '--test-sets', '100', '--epochs', '3', '--seed', '4');
    const b = await cli('deepsets', '--json', '--train-sets', '200', '--test-sets', '100', '--epochs', '3', '--seed', '4');
    const strip = (s: string) => {
      const j = JSON.parse(s);
      delete j.deepsets.seconds;
      delete j.mlp.seconds;
      return j;
    };
    expect(strip(a.out)).toEqual(strip(b.out));
  });
  it('rejects bad flags with exit 2', async () => {
    expect((await cli('deepsets', '--epochs', '0')).code).toBe(2);
    const r = await cli('deepsets', '--task', 'nope');
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--task must be one of disc-majority, close-pair/);
  });
  it('--task close-pair runs with sum pooling and reports the set-size baseline', async () => {
    const j = JSON.parse((await cli('deepsets', '--task', 'close-pair', '--json', '--train-sets', '200', '--test-sets', '100', '--epochs', '2')).out);
    expect(j.task).toBe('close-pair');
    expect(j.deepsets.spec).toMatch(/masked_sum_pool/);
    expect(j.size_baseline).toBeGreaterThan(0.5);
    expect(j.deepsets.invarianceDefect).toBeLessThan(1e-5);
  });
});

describe('the set tasks', () => {
  it('close-pair labels are 1 exactly when two points are closer than r', () => {
    const d = closePairSets({ count: 100, maxSize: 6, seed: 2 });
    const sizes = setSizes(d.x);
    for (let s = 0; s < 100; s++) {
      let close = 0;
      for (let i = 0; i < sizes[s]!; i++)
        for (let j = i + 1; j < sizes[s]!; j++) {
          const a = (s * 6 + i) * 3,
            b = (s * 6 + j) * 3;
          if (Math.hypot(d.x.data[a]! - d.x.data[b]!, d.x.data[a + 1]! - d.x.data[b + 1]!) < 0.1) close = 1;
        }
      expect(d.labels![s]).toBe(close);
    }
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(2);
  });
  it('the size baseline is perfect when the label is the set size', () => {
    const d = discMajoritySets({ count: 50, maxSize: 4, seed: 1 });
    const sized = { ...d, labels: Int32Array.from(setSizes(d.x), (n) => (n >= 3 ? 1 : 0)) };
    expect(sizeBaseline(sized, sized)).toBe(1);
  });
  it('labels are order-free and sizes lie in range; empty sets are allowed', () => {
    const d = discMajoritySets({ count: 200, maxSize: 5, minSize: 0, seed: 3 });
    const sizes = setSizes(d.x);
    expect(Math.min(...sizes)).toBe(0);
    expect(Math.max(...sizes)).toBe(5);
    const frac = d.labels!.reduce((a, b) => a + b, 0) / 200;
    expect(frac).toBeGreaterThan(0.2);
    expect(frac).toBeLessThan(0.8);
  });
});
