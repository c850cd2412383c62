import { describe, expect, it } from 'vitest';
import { gradcheck, parseSpec, Rng, Tensor } from '../../src/index.js';
import { BUILT_IN_LAYERS } from '../../src/catalogue/index.js';
import { structure } from '../laws/arbitrary.js';
import { EXAMPLES } from './examples.js';

/**
 * Every layer that spec strings can name has an example (./examples.ts), and every one passes a
 * float64 gradient check, in training mode too for the stochastic ones (with a fixed noise draw).
 */
describe('every layer that spec strings can name', () => {
  it('has an example here', () => {
    // the built-in ones (a layer a test defines with defineLayer is not paralens's)
    expect(BUILT_IN_LAYERS.map((d) => d.name).filter((n) => !(n in EXAMPLES))).toEqual([]);
  });

  it.each(Object.entries(EXAMPLES))('%s passes a float64 gradient check and prints as a spec that parses back', (_name, ex) => {
    const f = parseSpec(ex.spec);
    expect(structure(parseSpec(String(f)))).toEqual(structure(f));
    expect(String(parseSpec(String(f)))).toBe(String(f));
    for (const seed of [1, 2]) {
      // token ids as input: integers held fixed (they get no gradient)
      const rng = new Rng(seed);
      const x = ex.ids
        ? Tensor.of(
            Array.from({ length: 3 * ex.dom.reduce((a, b) => a * b, 1) }, () => rng.int(ex.ids!)),
            [3, ...ex.dom],
            'float64',
          )
        : undefined;
      const r = gradcheck(f, { dom: ex.dom, seed, training: ex.training, x, fixedInput: Boolean(ex.ids) });
      expect(r.relError, `${ex.spec}: analytic ${r.analytic} vs numeric ${r.numeric}`).toBeLessThan(1e-6);
    }
  });
});
