import { describe, expect, it } from 'vitest';
import { parseSpec, primitive, Rng, seq, Tensor } from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { generate, sampleLogits } from '../../src/train/generate.js';
import type { GenerateOptions } from '../../src/train/generate.js';

/**
 * The same sampling rule without the key/value cache: every id from a full forward over the
 * current window (the window refilled with its last half when full, as generate does).
 */
function generateByFullPasses(model: Para, theta: Tensor[], prompt: number[], n: number, opts: GenerateOptions): number[] {
  const T = opts.window,
    half = Math.floor(T / 2);
  let win = prompt.slice(-T);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const y = model.at([win.length]).run(theta, Tensor.of(win, [1, win.length], 'float64'));
    const V = y.shape[2]!;
    const next = sampleLogits(y.data.subarray(y.size - V), opts.rng, opts);
    out.push(next);
    win = win.length === T ? [...win.slice(win.length - half + 1), next] : [...win, next];
  }
  return out;
}

describe('generate', () => {
  it.each(['rope', 'relative(4)', 'absolute(8)', 'none'])('with the cache (%s) gives the ids full passes give, across window refills', (pos) => {
    const model = parseSpec(`embedding(11,8) >> transformer(8,2,16,${pos}) >> transformer(8,2,16,${pos}) >> layernorm(8) >> dense(8,11)`);
    const theta = model.init(5, 'float64').map((t) => {
      for (let i = 0; i < t.size; i++) t.data[i]! *= 1.5; // sharper predictions, so a wrong cache would show
      return t;
    });
    for (const prompt of [[3], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]]) {
      const opts = { window: 8, temperature: 0.8, topK: 5 };
      const a = generate(model, theta, prompt, 30, { ...opts, rng: new Rng(2) });
      const b = generateByFullPasses(model, theta, prompt, 30, { ...opts, rng: new Rng(2) });
      expect(a).toEqual(b);
      expect(generate(model, theta, prompt, 30, { ...opts, rng: new Rng(2) })).toEqual(a);
    }
  });

  it('costs O(n·window) position steps: each id one step, plus one refill of half a window per half window', () => {
    const model = parseSpec('embedding(7,4) >> transformer(4,1,8,rope) >> dense(4,7)');
    let positions = 0;
    // an identity on each position that counts the positions it is stepped on
    const counter = (dom?: readonly number[]): Para =>
      primitive({
        kind: 'id',
        dom,
        cod: dom,
        positionwise: true,
        at: (d) => counter(d),
        forward: (_t, x) => {
          positions += x.shape[1]!;
          return { y: x, pullback: (d) => d };
        },
      });
    const counted = seq(counter(), model);
    const n = 400,
      T = 16;
    generate(counted, model.init(1), [1, 2, 3], n, { window: T, rng: new Rng(0) });
    // the prompt, then n − 1 single steps, and a refill of T/2 ids each time T/2 more were generated
    expect(positions).toBeLessThanOrEqual(3 + n + (n / (T / 2)) * (T / 2));
    expect(positions).toBeGreaterThanOrEqual(n);
  });

  it('temperature 0 is greedy; top-k 1 too; top-k never picks outside the k largest', () => {
    const z = [0.1, 3, -2, 2.9, 0];
    expect(sampleLogits(z, new Rng(1), { temperature: 0 })).toBe(1);
    expect(sampleLogits(z, new Rng(1), { topK: 1 })).toBe(1);
    const rng = new Rng(3);
    for (let i = 0; i < 200; i++) expect([1, 3]).toContain(sampleLogits(z, rng, { topK: 2, temperature: 5 }));
    expect(() => sampleLogits(z, rng, { temperature: -1 })).toThrow(/temperature/);
  });

  it('refuses a model that cannot decode incrementally, and an empty prompt', () => {
    const open = parseSpec('embedding(5,4) >> attention(4,1,rope,none) >> dense(4,5)');
    expect(() => generate(open, open.init(0), [1], 3, { window: 4, rng: new Rng(0) })).toThrow(/one position at a time/);
    const lm = parseSpec('embedding(5,4) >> attention(4,1,rope) >> dense(4,5)');
    expect(() => generate(lm, lm.init(0), [], 3, { window: 4, rng: new Rng(0) })).toThrow(/prompt/);
  });
});
