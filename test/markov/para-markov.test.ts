import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/index.js';
import fc from 'fast-check';
import {} from '../../src/markov/index.js';
import { dropout } from '../../src/nn/index.js';
import { copy, discard, gradcheck, makeCtx, par, seq } from '../../src/para/index.js';
import { Tensor } from '../../src/tensor/index.js';

/**
 * The Markov-category structure at the level of Para morphisms: dropout is a stochastic
 * morphism, so it commutes with discard but not with copy.
 */
describe('dropout in the Markov category of Para morphisms', () => {
  const ones = (n: number) => Tensor.full([1, n], 1, 'float64');

  it('dropout >> copy gives two equal halves; copy >> (dropout @ dropout) two independent masks', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
        const n = 64;
        const left = seq(dropout(0.5).at([n]), copy(n));
        const right = seq(copy(n), par(dropout(0.5).at([n]), dropout(0.5).at([n])));
        const a = left.forward([], ones(n), makeCtx({ training: true, rng: new Rng(seed) })).y.data;
        const b = right.forward([], ones(n), makeCtx({ training: true, rng: new Rng(seed) })).y.data;
        let equalLeft = 0,
          equalRight = 0;
        for (let i = 0; i < n; i++) {
          if (a[i] === a[n + i]) equalLeft++;
          if (b[i] === b[n + i]) equalRight++;
        }
        // independent masks agree on about half the units (P(≥ 60 of 64) is astronomically small)
        return equalLeft === n && equalRight < 60;
      }),
      { numRuns: 30 },
    );
  });

  it('dropout >> discard = discard (discard is natural for every kernel)', () => {
    const x = ones(5);
    const y = seq(dropout(0.3).at([5]), discard(5)).forward([], x, makeCtx({ training: true, rng: new Rng(1) })).y;
    expect(y.shape).toEqual([1, 0]);
  });

  it('in evaluation mode dropout is deterministic and copy commutes with it', () => {
    const x = Tensor.of([1, 2, 3], [1, 3], 'float64');
    const a = seq(dropout(0.5).at([3]), copy(3)).run([], x).data;
    const b = seq(copy(3), par(dropout(0.5).at([3]), dropout(0.5).at([3]))).run([], x).data;
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it('the composite with copy gradchecks with fixed masks', () => {
    expect(gradcheck(seq(copy(4), par(dropout(0.3).at([4]), dropout(0.6).at([4]))), { training: true, seed: 2 }).ok).toBe(true);
  });
});
