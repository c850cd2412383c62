import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attention, makeCtx, Rng, Tensor } from '../../src/index.js';
import type { Mask, Para } from '../../src/index.js';

/**
 * The symmetries seed 001 derives attention kernels from, each checked under random group
 * elements with a negative control:
 *   shifts of position (ℤ acting on positions):   rope and relative scores see k − q only, so the output
 *                                                  does not change when every position moves by s; absolute does
 *   permutations of the sequence (S(T)):         with no position and no mask, f(σx) = σf(x); any position
 *                                                  mechanism, or the causal mask, breaks it
 */
const T = 6,
  d = 8,
  heads = 2;
const relDiff = (a: Tensor, b: Tensor): number => {
  let num = 0,
    den = 0;
  for (let i = 0; i < a.size; i++) {
    num += (a.data[i]! - b.data[i]!) ** 2;
    den += a.data[i]! ** 2;
  }
  return Math.sqrt(num / den);
};
const randn = (shape: number[], rng: Rng): Tensor =>
  Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    shape,
    'float64',
  );

/** A random layer at a random point: θ (with position parameters made non-trivial) and x. */
function instance(pos: string, mask: Mask, seed: number): { f: Para; theta: Tensor[]; x: Tensor } {
  const rng = new Rng(seed);
  const f = attention(d, heads, pos, mask).at([T, d]);
  // relative biases start at zero and absolute tables near it: draw them at unit scale
  const theta = f.params.map((p) => randn([...p.shape], rng));
  return { f, theta, x: randn([2, T, d], rng) };
}

const shifted = (f: Para, theta: Tensor[], x: Tensor, s: number): Tensor => f.forward(theta, x, makeCtx({ positionOffset: s })).y;

/** x with its positions permuted: (σx)[t] = x[σ(t)]. */
function permute(x: Tensor, sigma: readonly number[]): Tensor {
  const y = Tensor.zeros(x.shape, x.dtype);
  for (let b = 0; b < x.batch; b++)
    for (let t = 0; t < T; t++) y.data.set(x.data.subarray((b * T + sigma[t]!) * d, (b * T + sigma[t]! + 1) * d), (b * T + t) * d);
  return y;
}

const seeds = fc.integer({ min: 0, max: 1e6 });
const perms = fc.shuffledSubarray([...Array(T).keys()], { minLength: T, maxLength: T }).filter((p) => p.some((v, i) => v !== i));

describe('attention and the shift group', () => {
  for (const mask of ['causal', 'none'] as const) {
    for (const pos of ['rope', 'relative', 'relative(2)', 'none']) {
      it(`${pos}, mask ${mask}: the output does not change when every position moves by s`, () => {
        fc.assert(
          fc.property(seeds, fc.integer({ min: 1, max: 500 }), (seed, s) => {
            const { f, theta, x } = instance(pos, mask, seed);
            expect(relDiff(shifted(f, theta, x, s), shifted(f, theta, x, 0))).toBeLessThan(1e-10);
          }),
          { numRuns: 25 },
        );
      });
    }
    it(`negative control — absolute(64), mask ${mask}: a shift changes the output`, () => {
      fc.assert(
        fc.property(seeds, fc.integer({ min: 1, max: 40 }), (seed, s) => {
          const { f, theta, x } = instance('absolute(64)', mask, seed);
          expect(relDiff(shifted(f, theta, x, s), shifted(f, theta, x, 0))).toBeGreaterThan(1e-3);
        }),
        { numRuns: 25 },
      );
    });
  }
});

describe('attention and permutations of the sequence', () => {
  it('none, mask none (the S(n) end): f(σx) = σf(x)', () => {
    fc.assert(
      fc.property(seeds, perms, (seed, sigma) => {
        const { f, theta, x } = instance('none', 'none', seed);
        expect(relDiff(f.run(theta, permute(x, sigma)), permute(f.run(theta, x), sigma))).toBeLessThan(1e-12);
      }),
      { numRuns: 30 },
    );
  });

  for (const [pos, mask] of [
    ['rope', 'none'],
    ['relative', 'none'],
    ['absolute(6)', 'none'],
    ['none', 'causal'],
  ] as const) {
    it(`negative control — ${pos}, mask ${mask}: a permutation does not commute with f`, () => {
      fc.assert(
        fc.property(seeds, perms, (seed, sigma) => {
          const { f, theta, x } = instance(pos, mask, seed);
          expect(relDiff(f.run(theta, permute(x, sigma)), permute(f.run(theta, x), sigma))).toBeGreaterThan(1e-4);
        }),
        { numRuns: 30 },
      );
    });
  }
});

describe('the causal mask', () => {
  it('position t of the output depends on positions ≤ t only (every mechanism); without the mask it does not', () => {
    for (const pos of ['rope', 'relative', 'absolute(6)', 'none']) {
      fc.assert(
        fc.property(seeds, fc.integer({ min: 0, max: T - 2 }), (seed, t) => {
          const { f, theta, x } = instance(pos, 'causal', seed);
          const x2 = x.clone();
          for (let b = 0; b < 2; b++) for (let i = (b * T + t + 1) * d; i < (b + 1) * T * d; i++) x2.data[i]! += 1;
          const y = f.run(theta, x),
            y2 = f.run(theta, x2);
          for (let b = 0; b < 2; b++) for (let i = b * T * d; i < (b * T + t + 1) * d; i++) expect(Math.abs(y.data[i]! - y2.data[i]!)).toBeLessThan(1e-12);
          const open = instance(pos, 'none', seed);
          expect(relDiff(open.f.run(open.theta, x), open.f.run(open.theta, x2))).toBeGreaterThan(1e-4);
        }),
        { numRuns: 10 },
      );
    }
  });
});
