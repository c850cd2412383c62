import { describe, expect, it } from 'vitest';
import '../../src/tensor/index.js';
import { section } from '../../src/cli/tour/markov.js';
import { quietIO } from '../cli/helpers.js';

describe('tour: Markov section', () => {
  it('prints the dropout lens, exercise 2, the Bayesian demo and the uncertainty summary', async () => {
    const out = await section.run({ seed: 0, io: quietIO });
    const text = out.lines.join('\n');
    for (const k of ['dropout(0.5)', 'Exercise 2', 'bayes_dense(2,1) >> sigmoid', 'ECE', 'away / near', 'iris', 'moons']) expect(text).toContain(k);
    expect(out.summary!.length).toBeGreaterThanOrEqual(4);
    expect(out.figures!.length).toBe(3);
    const d = out.data as { bayes_demo: { mean: number }; gap_regression: { near: number; away: number }[] };
    expect(d.bayes_demo.mean).toBeGreaterThan(0.69);
    for (const g of d.gap_regression) expect(g.away).toBeGreaterThanOrEqual(2 * g.near);
  });
});
