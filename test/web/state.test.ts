import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeState, DEFAULT_STATE, defaultModel, encodeState } from '../../web/state.js';
import { setup } from '../../web/model.js';

describe('playground state in the URL hash', () => {
  it('round-trips any valid state', () => {
    const st = fc.record({
      data: fc.constantFrom('xor', 'moons', 'spirals', 'circles', 'blobs', 'iris'),
      model: fc.constantFrom('dense(2,4) >> tanh >> dense(4,1)', 'residual(dense(2,2) >> relu) >> dense(2,1)', 'a & b = c # d'),
      lr: fc.double({ min: 1e-4, max: 10, noNaN: true }),
      optimizer: fc.constantFrom('sgd', 'momentum', 'nesterov', 'adam', 'adamw'),
      batch: fc.integer({ min: 1, max: 512 }),
      epochs: fc.integer({ min: 1, max: 5000 }),
      seed: fc.integer({ min: 0, max: 1e6 }),
      uncertainty: fc.constantFrom('off' as const, 'mc-dropout' as const, 'bayes' as const),
    });
    fc.assert(
      fc.property(st, (s) => {
        const { state, notices } = decodeState(encodeState(s));
        expect(notices).toEqual([]);
        expect(state).toEqual(s);
      }),
    );
  });

  it('falls back to defaults with a notice for malformed entries', () => {
    const { state, notices } = decodeState('#data=mnist&lr=abc&batch=-3&colour=red&uncertainty=maybe');
    expect(state.data).toBe(DEFAULT_STATE.data);
    expect(state.lr).toBe(DEFAULT_STATE.lr);
    expect(state.batch).toBe(DEFAULT_STATE.batch);
    expect(notices.join('\n')).toMatch(/'mnist' is not a valid data/);
    expect(notices.join('\n')).toMatch(/'abc' is not a valid lr/);
    expect(notices.join('\n')).toMatch(/unknown setting 'colour'/);
    expect(decodeState('').notices).toEqual([]);
    fc.assert(
      fc.property(fc.string(), (h) => {
        expect(() => decodeState('#' + h)).not.toThrow();
      }),
    );
  });

  it('a bad spec gives the same message as the CLI, and each data set has a fitting default model', () => {
    const bad = setup({ ...DEFAULT_STATE, model: 'dense(2,4) >> dense(3,1)' });
    expect('error' in bad && bad.error).toBe('dense(3,1) expects [*,3] but got [*,4] from dense(2,4)');
    for (const d of ['xor', 'moons', 'spirals', 'circles', 'blobs', 'iris']) {
      const s = setup({ ...DEFAULT_STATE, data: d, model: defaultModel(d) });
      expect('error' in s, d).toBe(false);
    }
  });
});
