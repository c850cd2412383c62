import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';

describe('paralens uncertainty', () => {
  it('--json prints exactly one JSON object with the held-out metrics', async () => {
    const r = await cli('uncertainty', '--data', 'moons', '--method', 'mc-dropout', '--samples', '30', '--epochs', '100', '--json');
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(Object.keys(o)).toEqual(expect.arrayContaining(['accuracy', 'nll', 'ece', 'std_in', 'std_out', 'model']));
    expect(o.method).toBe('mc-dropout');
    expect(o.model).toContain('dropout(0.1)');
    expect(o.samples).toBe(30);
    expect(o.std_out).toBeGreaterThan(o.std_in);
    expect(r.out.trim().split('\n')).toHaveLength(1);
  });

  it('prints a readable report', async () => {
    const r = await cli('uncertainty', '--data', 'iris', '--method', 'bayes', '--samples', '20', '--epochs', '50');
    expect(r.code).toBe(0);
    for (const k of ['accuracy', 'NLL', 'ECE', 'std in', 'std out', 'bayes_dense(4,16)']) expect(r.out).toContain(k);
  });

  it('bad input exits 2 naming the parameter and its range', async () => {
    const cases: [string[], RegExp][] = [
      [['--samples', '0'], /--samples .*(> 0|≥ 1)/],
      [['--samples', '-3'], /--samples/],
      [['--dropout', '1'], /--dropout .*\[0, 1\)/],
      [['--dropout', '-0.2'], /--dropout .*\[0, 1\)/],
      [['--prior-sigma', '0'], /--prior-sigma must be > 0/],
      [['--sigma0', '-1'], /--sigma0 must be > 0/],
      [['--method', 'magic'], /--method must be one of/],
    ];
    for (const [extra, msg] of cases) {
      const r = await cli('uncertainty', '--data', 'iris', ...extra);
      expect(r.code, extra.join(' ')).toBe(2);
      expect(r.err + r.out).toMatch(msg);
    }
    const missing = await cli('uncertainty');
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/--data NAME is required/);
    const unknown = await cli('uncertainty', '--data', 'nope');
    expect(unknown.code).toBe(2);
  });

  it('--help describes the flags', async () => {
    const r = await cli('uncertainty', '--help');
    expect(r.code).toBe(0);
    expect(r.out + r.err).toMatch(/--samples/);
    expect(r.out + r.err).toMatch(/bayes\|mc-dropout\|deterministic/);
  });
});
