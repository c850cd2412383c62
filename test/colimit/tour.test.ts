import { describe, expect, it } from 'vitest';
import { section } from '../../src/cli/tour/colimit.js';
import { quietIO } from '../cli/helpers.js';

describe('tour section: colimits', () => {
  it('runs and reports pooling, DeepSets vs MLP and k-means, with summary rows', async () => {
    const out = await section.run({ seed: 0, io: quietIO });
    const text = out.lines.join('\n');
    expect(text).toMatch(/sum_pool/);
    expect(text).toMatch(/DeepSets/);
    expect(text).toMatch(/78\.85/);
    expect(out.summary!.length).toBeGreaterThanOrEqual(3);
    const d = out.data as { sum_pool: { original: number[]; permuted: number[] }; kmeans_iris: { inertia_fisher: number } };
    expect(d.sum_pool.permuted).toEqual(d.sum_pool.original);
    expect(d.kmeans_iris.inertia_fisher).toBeCloseTo(78.851, 2);
  });
});
