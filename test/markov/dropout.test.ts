import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/index.js';
import fc from 'fast-check';
import { estimate } from '../../src/markov/index.js';
import { dropout } from '../../src/nn/index.js';
import { gradcheck, makeCtx } from '../../src/para/index.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { Tensor } from '../../src/tensor/index.js';
import { RangeArgError } from '../../src/errors.js';

const randn = (shape: number[], rng: Rng): Tensor => {
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
};

describe('dropout(p) as a stochastic lens', () => {
  it('pullback reuses the mask: zero gradient at dropped units, 1/(1−p) elsewhere', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), fc.double({ min: 0.05, max: 0.9, noNaN: true }), (seed, p) => {
        const rng = new Rng(seed);
        const x = randn([4, 7], rng);
        const f = dropout(p).at([7]);
        const lens = f.forward([], x, makeCtx({ training: true, rng: new Rng(seed + 1) }));
        const dy = randn([4, 7], rng);
        const dx = lens.pullback(dy, []);
        let dropped = 0;
        for (let i = 0; i < x.size; i++) {
          const kept = lens.y.data[i] !== 0;
          if (!kept) {
            dropped++;
            expect(dx.data[i] === 0).toBe(true);
          } else {
            expect(lens.y.data[i]).toBeCloseTo(x.data[i]! / (1 - p), 12);
            expect(dx.data[i]).toBeCloseTo(dy.data[i]! / (1 - p), 12);
          }
        }
        return dropped >= 0;
      }),
      { numRuns: 40 },
    );
  });

  it('drops about a fraction p of the units', () => {
    const x = Tensor.full([100, 100], 1, 'float64');
    const y = dropout(0.3)
      .at([100])
      .forward([], x, makeCtx({ training: true, rng: new Rng(9) })).y;
    let zeros = 0;
    for (const v of y.data) if (v === 0) zeros++;
    expect(Math.abs(zeros / 1e4 - 0.3)).toBeLessThan(4 * Math.sqrt(0.21 / 1e4));
  });

  it('the Monte Carlo mean of the output equals the input within its standard error', () => {
    const x = Tensor.of([0.5, -1.2, 2.0, 3.3], [1, 4], 'float64');
    const f = dropout(0.4).at([4]);
    const rng = new Rng(11);
    const n = 4000;
    const outs = Array.from({ length: 4 }, () => new Float64Array(n));
    for (let s = 0; s < n; s++) {
      const y = f.forward([], x, makeCtx({ training: true, rng: rng.split() })).y;
      for (let j = 0; j < 4; j++) outs[j]![s] = y.data[j]!;
    }
    outs.forEach((o, j) => {
      const e = estimate(o);
      expect(Math.abs(e.mean - x.data[j]!)).toBeLessThan(4 * e.stdError);
      // and the spread is what Bernoulli scaling predicts: |x|·√(p/(1−p))
      expect(e.std).toBeCloseTo(Math.abs(x.data[j]!) * Math.sqrt(0.4 / 0.6), 1);
    });
  });

  it('evaluation mode is the identity, and so is p = 0', () => {
    const x = randn([3, 5], new Rng(1));
    expect(Array.from(dropout(0.5).run([], x).data)).toEqual(Array.from(x.data));
    const y = dropout(0)
      .at([5])
      .forward([], x, makeCtx({ training: true, rng: new Rng(2) })).y;
    expect(Array.from(y.data)).toEqual(Array.from(x.data));
  });

  it('gradchecks with a fixed mask (training mode reseeds identically)', () => {
    for (const p of [0, 0.2, 0.5]) {
      expect(gradcheck(dropout(p), { dom: [6], training: true, seed: 3 }).ok).toBe(true);
      expect(gradcheck(parseSpec(`dense(3,6) >> dropout(${p}) >> tanh >> dense(6,2)`), { training: true, seed: 4 }).ok).toBe(true);
    }
  });

  it('same seed → bit-identical outputs; different seeds → different masks', () => {
    const x = randn([8, 16], new Rng(5));
    const f = dropout(0.5).at([16]);
    const a = f.forward([], x, makeCtx({ training: true, rng: new Rng(7) })).y;
    const b = f.forward([], x, makeCtx({ training: true, rng: new Rng(7) })).y;
    const c = f.forward([], x, makeCtx({ training: true, rng: new Rng(8) })).y;
    expect(Array.from(a.data)).toEqual(Array.from(b.data));
    expect(Array.from(a.data)).not.toEqual(Array.from(c.data));
  });

  it('has kind dropout, prints as its spec and parses back', () => {
    const m = parseSpec('dense(2,4) >> dropout(0.25) >> dense(4,1)');
    expect(m.children[1]!.kind).toBe('dropout');
    expect(String(m)).toBe('dense(2,4) >> dropout(0.25) >> dense(4,1)');
    expect(String(parseSpec(String(m)))).toBe(String(m));
    expect(m.children[1]!.params).toHaveLength(0);
  });

  it('a drop probability outside [0,1) is a typed error naming the range', () => {
    for (const p of [1, 1.5, -0.1, NaN]) expect(() => dropout(p)).toThrow(RangeArgError);
    expect(() => dropout(1)).toThrow(/\[0, 1\).*keep probability 1−p in \(0, 1\]/);
    expect(() => parseSpec('dense(2,2) >> dropout(1)')).toThrow(RangeArgError);
  });
});
