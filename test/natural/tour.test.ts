import { describe, expect, it } from 'vitest';
import { section } from '../../src/cli/tour/natural.js';
import { quietIO } from '../cli/helpers.js';

describe('tour section: natural transformations', () => {
  it('runs and reports exercise 4, distillation and naturality, with summary rows', async () => {
    const out = await section.run({ seed: 0, io: quietIO });
    const text = out.lines.join('\n');
    expect(text).toMatch(/Exercise 4/);
    expect(text).toMatch(/Hinton KD/);
    expect(out.summary!.length).toBeGreaterThanOrEqual(3);
    const d = out.data as { exercise4: { lossAfter: number; lossBefore: number } };
    expect(d.exercise4.lossAfter).toBeLessThan(d.exercise4.lossBefore);
    expect(() => JSON.stringify(out.data)).not.toThrow();
  });
});
