import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RangeArgError } from '../../../src/errors.js';
import { glue, greedyClique, maxConsistentScalars, maximalConsistentSubset, maximumClique } from '../../../src/topos/index.js';
import type { Section } from '../../../src/topos/index.js';

/** Brute force: the size of the largest subset satisfying `ok`. */
function bruteMax(n: number, ok: (members: number[]) => boolean): number {
  let best = 0;
  for (let mask = 1; mask < 1 << n; mask++) {
    const m = Array.from({ length: n }, (_, i) => i).filter((i) => mask & (1 << i));
    if (m.length > best && ok(m)) best = m.length;
  }
  return best;
}

const isClique = (adj: Uint8Array[], m: number[]): boolean => m.every((a) => m.every((b) => a === b || adj[a]![b] === 1));

const graph = (n: number, bits: boolean[]): Uint8Array[] => {
  const adj = Array.from({ length: n }, () => new Uint8Array(n));
  let k = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) adj[i]![j] = adj[j]![i] = bits[k++ % bits.length] ? 1 : 0;
  return adj;
};

describe('maximum consistent subset', () => {
  it('scalar sweep equals brute force', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 12 }), fc.integer({ min: 0, max: 40 }), (ints, e) => {
        const values = ints.map((v) => v / 100),
          eps = e / 100 + 0.001; // keep away from rounding ties
        const m = maxConsistentScalars(values, eps);
        const spread = (idx: number[]): number => Math.max(...idx.map((i) => values[i]!)) - Math.min(...idx.map((i) => values[i]!));
        expect(spread(m)).toBeLessThanOrEqual(eps);
        expect(new Set(m).size).toBe(m.length);
        expect(m.length).toBe(bruteMax(values.length, (idx) => spread(idx) <= eps));
      }),
    );
  });

  it('branch-and-bound maximum clique equals brute force on random graphs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 66 }), (n, bits) => {
        const adj = graph(n, bits);
        const c = maximumClique(adj);
        expect(isClique(adj, c)).toBe(true);
        expect(c.length).toBe(bruteMax(n, (m) => isClique(adj, m)));
      }),
      { numRuns: 200 },
    );
  });

  it('greedy clique is a clique, never larger than the maximum', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.boolean(), { minLength: 1, maxLength: 66 }), (n, bits) => {
        const adj = graph(n, bits);
        const g = greedyClique(adj);
        expect(isClique(adj, g)).toBe(true);
        expect(g.length).toBeLessThanOrEqual(maximumClique(adj).length);
      }),
    );
  });

  it('vector sections with partial overlaps: exact, and the members glue', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 10 }), fc.subarray(['u', 'v', 'w'], { minLength: 1 })), {
          minLength: 1,
          maxLength: 9,
        }),
        fc.integer({ min: 0, max: 6 }),
        (raw, e) => {
          const S: Section[] = raw.map(([p, q, ctx], i) => ({ name: `s${i}`, context: ctx, prediction: [p / 10, q / 10] }));
          const eps = e / 10 + 0.005;
          const r = maximalConsistentSubset(S, eps);
          expect(r.exact).toBe(true);
          expect(
            glue(
              r.members.map((i) => S[i]!),
              eps,
            ).glued,
          ).toBe(true);
          expect(r.members.length).toBe(
            bruteMax(
              S.length,
              (m) =>
                glue(
                  m.map((i) => S[i]!),
                  eps,
                ).glued,
            ),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it('uses the sweep for scalars over overlapping contexts, branch and bound for vectors, greedy beyond the limit', () => {
    const scalars: Section[] = [0.1, 0.5, 0.55, 0.62, 0.9].map((p) => ({ context: ['x'], prediction: p }));
    const r = maximalConsistentSubset(scalars, 0.15);
    expect(r.method).toBe('scalar-sweep');
    expect(r.members).toEqual([1, 2, 3]);
    const vectors = scalars.map((s) => ({ ...s, prediction: [s.prediction as number, 0] }));
    expect(maximalConsistentSubset(vectors, 0.15).method).toBe('branch-and-bound');
    expect(maximalConsistentSubset(vectors, 0.15).members).toEqual([1, 2, 3]);
    const g = maximalConsistentSubset(vectors, 0.15, { exactLimit: 3 });
    expect(g.method).toBe('greedy');
    expect(g.exact).toBe(false);
    expect(
      glue(
        g.members.map((i) => vectors[i]!),
        0.15,
      ).glued,
    ).toBe(true);
  });

  it('exact for a few dozen experts: 40 vector sections', () => {
    const S: Section[] = Array.from({ length: 40 }, (_, i) => ({
      context: [i % 3, (i + 1) % 3],
      prediction: [Math.sin(i) * 0.5 + 0.5, Math.cos(3 * i) * 0.5 + 0.5],
    }));
    const r = maximalConsistentSubset(S, 0.3);
    expect(r.method).toBe('branch-and-bound');
    expect(
      glue(
        r.members.map((i) => S[i]!),
        0.3,
      ).glued,
    ).toBe(true);
    expect(r.members.length).toBeGreaterThanOrEqual(maximalConsistentSubset(S, 0.3, { exactLimit: 0 }).members.length);
  });

  it('rejects a negative tolerance and an empty family', () => {
    expect(() => maxConsistentScalars([1, 2], -1)).toThrow(RangeArgError);
    expect(() => maximalConsistentSubset([], 0.1)).toThrow(RangeArgError);
  });
});
