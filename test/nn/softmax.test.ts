import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { logSumExpRows, softmaxRows } from '../../src/nn/index.js';

describe('softmaxRows and logSumExpRows (one pass: the row maximum and the shifted exponentials)', () => {
  const block = fc
    .integer({ min: 1, max: 4 })
    .chain((rows) =>
      fc
        .integer({ min: 1, max: 6 })
        .chain((n) =>
          fc.tuple(fc.constant(rows), fc.constant(n), fc.array(fc.double({ min: -800, max: 800, noNaN: true }), { minLength: rows * n, maxLength: rows * n })),
        ),
    );

  it('agree on the log-sum-exp, give rows that sum to 1, and log softmax = x − lse, even where exp overflows', () => {
    fc.assert(
      fc.property(block, ([rows, n, xs]) => {
        const x = Float64Array.from(xs),
          p = new Float64Array(rows * n),
          lse = new Float64Array(rows),
          lse2 = new Float64Array(rows);
        softmaxRows(x, rows, n, p, lse);
        logSumExpRows(x, rows, n, lse2);
        expect(Array.from(lse2)).toEqual(Array.from(lse));
        for (let r = 0; r < rows; r++) {
          let sum = 0,
            max = -Infinity;
          for (let j = 0; j < n; j++) {
            sum += p[r * n + j]!;
            max = Math.max(max, x[r * n + j]!);
          }
          expect(sum).toBeCloseTo(1, 12);
          expect(lse[r]!).toBeGreaterThanOrEqual(max);
          expect(lse[r]!).toBeLessThanOrEqual(max + Math.log(n) + 1e-12);
          for (let j = 0; j < n; j++) if (p[r * n + j]! > 1e-300) expect(Math.log(p[r * n + j]!)).toBeCloseTo(x[r * n + j]! - lse[r]!, 9);
        }
      }),
    );
  });
});
