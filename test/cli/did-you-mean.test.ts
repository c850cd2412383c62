import { describe, expect, it } from 'vitest';
import { didYouMean, nearestName } from '../../src/errors.js';
import { layerNames } from '../../src/catalogue/index.js';
import { cli } from './helpers.js';

describe('did you mean: the one known name a typo is near (src/errors.ts nearestName)', () => {
  const layers = layerNames();

  it('one edit — a dropped, added, changed or swapped character — finds the name; case costs nothing', () => {
    expect(nearestName('dens', layers)).toBe('dense');
    expect(nearestName('densee', layers)).toBe('dense');
    expect(nearestName('sigmod', layers)).toBe('sigmoid');
    expect(nearestName('lstn', layers)).toBe('lstm');
    expect(nearestName('trian', ['tour', 'train', 'predict'])).toBe('train'); // a swap is one edit
    expect(nearestName('DENSE', layers)).toBe('dense');
    expect(nearestName('layer_norm', layers)).toBe('layernorm');
  });

  it('a name far from every known one gets no suggestion (the negative control), and an exact name none', () => {
    expect(nearestName('spline', ['tie', 'cubic', 'linear'])).toBeUndefined();
    expect(nearestName('xy', ['dense', 'relu'])).toBeUndefined();
    expect(nearestName('mnist', ['xor', 'moons', 'fashion-mnist'])).toBeUndefined();
    expect(nearestName('dense', ['dense'])).toBeUndefined();
    expect(didYouMean('qwertyuiop', layers)).toBe('');
    // a short name allows one edit
    expect(nearestName('ab', ['abc', 'xyz'])).toBe('abc');
    expect(nearestName('ab', ['xyz'])).toBeUndefined();
  });

  it('ties go to the name listed first; the suggestion is written with quotes, or after a prefix for flags', () => {
    expect(nearestName('tanx', ['tan', 'tanh'])).toBe('tan');
    expect(didYouMean('dens', ['dense'])).toBe(" (did you mean 'dense'?)");
    expect(didYouMean('modle', ['model', 'out'], '--')).toBe(' (did you mean --model?)');
  });
});

describe('did you mean, in the one-line errors of the command line', () => {
  it('a layer name in a spec, a command, a subcommand-free flag, a data set: one suggestion, on one line, exit 2', async () => {
    const cases: [string[], string][] = [
      [['draw', '--model', 'dense(2,4) >> tahn'], "paralens: spec: unknown layer 'tahn' at column 15 (did you mean 'tanh'?); known: "],
      [['drow', '--model', 'dense(2,4)'], "paralens: unknown command 'drow' (did you mean 'draw'?); known: "],
      [['draw', '--modle', 'dense(2,4)'], 'paralens: draw: unknown flag --modle (did you mean --model?); known: '],
      [['train', '--model', 'dense(2,1)', '--data', 'moon'], "paralens: unknown data set 'moon' (did you mean 'moons'?); known: "],
    ];
    for (const [argv, start] of cases) {
      const r = await cli(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err.startsWith(start), r.err).toBe(true);
      expect(r.err.trimEnd().split('\n'), argv.join(' ')).toHaveLength(1);
    }
    expect((await cli('draw', '--model', 'dense(2,4) >> zzzzzz')).err).not.toMatch(/did you mean/);
  });
});
