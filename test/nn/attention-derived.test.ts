import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { attention, gradcheck, makeCtx, parseSpec, Rng, Tensor } from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { O } from '../../src/symmetry/group/group.js';

/**
 * attention(d,heads,GEOMETRY): the position part derived by the solver. The hand-written
 * mechanisms are checks of it — seq(T) is relative, seq(T,rotary) is rope — and every derived
 * layer is gradient-checked in float64 and tested under random elements of its group with a
 * negative control. attention(Sx0e+Cx1o,heads,points(n)) likewise under E(3) × S(n).
 */
const d = 8,
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
const randn = (shape: readonly number[], rng: Rng): Tensor =>
  Tensor.of(
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
    [...shape],
    'float64',
  );

/** A layer fixed to T tokens with every parameter (the derived coefficients included) at unit scale, and an input of two sequences. */
function instance(spec: string, T: number, seed: number): { f: Para; theta: Tensor[]; x: Tensor } {
  const rng = new Rng(seed);
  const f = parseSpec(spec).at([T, d]);
  return { f, theta: f.params.map((p) => randn(p.shape, rng)), x: randn([2, T, d], rng) };
}

/** x with its tokens permuted: (σx)[t] = x[σ(t)]. */
function permute(x: Tensor, sigma: readonly number[]): Tensor {
  const T = x.shape[1]!,
    w = x.shape[2]!;
  const y = Tensor.zeros(x.shape, x.dtype);
  for (let b = 0; b < x.batch; b++)
    for (let t = 0; t < T; t++) y.data.set(x.data.subarray((b * T + sigma[t]!) * w, (b * T + sigma[t]! + 1) * w), (b * T + t) * w);
  return y;
}

const seeds = fc.integer({ min: 0, max: 1e6 });

describe('derived attention: gradient checks (float64) and spec round trips', () => {
  const cases: [string, number[]][] = [
    ['attention(6,3,seq(5))', [5, 6]],
    ['attention(6,3,seq(5,causal))', [4, 6]],
    ['attention(8,2,seq(5,causal,rotary))', [5, 8]],
    ['attention(6,3,cyclic(5))', [5, 6]],
    ['attention(6,3,grid(2,3))', [6, 6]],
    ['attention(6,3,grid(2,2,D4))', [4, 6]],
    ['attention(6,3,set(4))', [4, 6]],
    ['transformer(4,2,6,seq(5,causal))', [5, 4]],
    ['attention(3x0e+2x1o,2,points(4))', [4, 12]],
    ['attention(3x0e,2,points(3,0))', [3, 6]],
    ['points_linear(3,2x0e+1x1o,1x0e+2x1o)', [3, 8]],
  ];
  it.each(cases)('%s', (spec, dom) => {
    const f = parseSpec(spec);
    expect(String(f)).toBe(spec);
    expect(String(parseSpec(String(f)))).toBe(spec);
    for (const seed of [1, 2]) {
      // the derived coefficients start at zero: draw θ at unit scale so their gradients are checked off zero
      const rng = new Rng(seed);
      const theta = f.params.map((p) => randn(p.shape, rng).data);
      const r = gradcheck(f, { dom, seed, theta: theta.map((t, i) => new Tensor(t, [...f.params[i]!.shape])) });
      expect(r.relError).toBeLessThan(1e-6);
    }
  });
});

describe('the hand-written mechanisms are checks of the solver', () => {
  it('attention(d,h,seq(T)) is attention(d,h,relative(T−1),none) with the coefficients as its distance biases', () => {
    for (const [geo, rel, T] of [
      ['seq(6)', 'relative(5),none', 6],
      ['seq(6,causal)', 'relative(5)', 6],
      ['seq(6)', 'relative(5),none', 4], // a shorter window of the same geometry
    ] as const) {
      const a = instance(`attention(${d},${heads},${geo})`, T, 7);
      const b = parseSpec(`attention(${d},${heads},${rel})`).at([T, d]);
      // derived orbits are numbered by first appearance (k − q = 0, 1, …, T−1, then −1, …); relative's buckets run −K … K (or 0 … K looking back)
      const K = 5,
        causal = geo.includes('causal');
      const kernel = a.theta[4]!,
        bias = Tensor.zeros([heads, causal ? K + 1 : 2 * K + 1], 'float64');
      for (let h = 0; h < heads; h++)
        for (let off = -K; off <= K; off++) {
          if (causal && off > 0) continue;
          const orbit = causal ? -off : off >= 0 ? off : K - off;
          bias.data[h * bias.shape[1]! + (causal ? -off : off + K)] = kernel.data[h * kernel.shape[1]! + orbit]!;
        }
      const y1 = a.f.run(a.theta, a.x),
        y2 = b.run([...a.theta.slice(0, 4), bias], a.x);
      expect(relDiff(y1, y2)).toBeLessThan(1e-12);
    }
  });

  it('attention(d,h,seq(T,rotary)) with zero coefficients is attention(d,h,rope): the derived ρ reproduces RoPE', () => {
    for (const [geo, mask] of [
      ['seq(6,rotary)', 'none'],
      ['seq(6,causal,rotary)', 'causal'],
    ] as const) {
      const a = instance(`attention(${d},${heads},${geo})`, 6, 3);
      a.theta[4]!.data.fill(0);
      const rope = attention(d, heads, 'rope', mask).at([6, d]);
      expect(relDiff(a.f.run(a.theta, a.x), rope.run(a.theta.slice(0, 4), a.x))).toBeLessThan(1e-12);
    }
  });

  it('attention(d,h,set(n)) is attention with no position and no mask plus αI + β(11ᵀ − I) per head', () => {
    const a = instance(`attention(${d},${heads},set(5))`, 5, 11);
    a.theta[4]!.data.fill(0);
    const plain = attention(d, heads, 'none', 'none').at([5, d]);
    expect(relDiff(a.f.run(a.theta, a.x), plain.run(a.theta.slice(0, 4), a.x))).toBeLessThan(1e-12);
  });

  it('a declared geometry refuses a mask of its own and windows it does not have', () => {
    expect(() => parseSpec('attention(8,2,seq(6),none)')).toThrow(/decides which keys a query sees/);
    expect(() => parseSpec('attention(8,2,seq(6))').at([7, 8])).toThrow(/at most 6 positions per sample/);
    expect(() => parseSpec('attention(8,2,grid(2,3))').at([5, 8])).toThrow(
      /exactly 6 positions per sample \(grid\(2,3\): 2·3 tokens in row-major order\) but got 5/,
    );
    expect(() => parseSpec('attention(6,2,seq(6,rotary))')).toThrow(/d\/heads must be even/);
    expect(() => parseSpec('attention(8,2,points(5))')).toThrow(/scalars then vectors/);
    expect(() => parseSpec('attention(4x0e+1x2e,2,points(5,2))')).toThrow(/lmax = 2; the layer carries scalars and vectors, lmax ≤ 1/);
  });
});

describe('derived attention under random group elements, with negative controls', () => {
  const roll = (T: number, s: number): number[] => Array.from({ length: T }, (_, t) => (t + s) % T);
  it('cyclic(T): f commutes with every cyclic shift of the tokens; seq(T) (not periodic) does not', () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 6 }), (seed, s) => {
        const a = instance(`attention(${d},${heads},cyclic(7))`, 7, seed);
        expect(relDiff(a.f.run(a.theta, permute(a.x, roll(7, s))), permute(a.f.run(a.theta, a.x), roll(7, s)))).toBeLessThan(1e-12);
        const b = instance(`attention(${d},${heads},seq(7))`, 7, seed);
        expect(relDiff(b.f.run(b.theta, permute(b.x, roll(7, s))), permute(b.f.run(b.theta, b.x), roll(7, s)))).toBeGreaterThan(1e-4);
      }),
      { numRuns: 20 },
    );
  });

  it('set(n): f commutes with every permutation; cyclic(n) does not', () => {
    // permutations that are not cyclic shifts (those commute with cyclic(5) too)
    const perms = fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 5, maxLength: 5 }).filter((p) => !p.every((v, i) => v === (p[0]! + i) % 5));
    fc.assert(
      fc.property(seeds, perms, (seed, sigma) => {
        const a = instance(`attention(${d},${heads},set(5))`, 5, seed);
        expect(relDiff(a.f.run(a.theta, permute(a.x, sigma)), permute(a.f.run(a.theta, a.x), sigma))).toBeLessThan(1e-12);
        const b = instance(`attention(${d},${heads},cyclic(5))`, 5, seed);
        expect(relDiff(b.f.run(b.theta, permute(b.x, sigma)), permute(b.f.run(b.theta, b.x), sigma))).toBeGreaterThan(1e-4);
      }),
      { numRuns: 20 },
    );
  });

  it('grid(n,n,D4): f commutes with the rotations and reflections of the square; grid(n,n) does not', () => {
    const n = 4;
    const square = (rot: number, flip: boolean): number[] =>
      Array.from({ length: n * n }, (_, p) => {
        let r = Math.floor(p / n),
          c = p % n;
        if (flip) c = n - 1 - c;
        for (let t = 0; t < rot; t++) [r, c] = [c, n - 1 - r];
        return r * n + c;
      });
    fc.assert(
      fc.property(seeds, fc.integer({ min: 0, max: 3 }), fc.boolean(), (seed, rot, flip) => {
        if (rot === 0 && !flip) return;
        const g = square(rot, flip);
        const a = instance(`attention(${d},${heads},grid(${n},${n},D4))`, n * n, seed);
        expect(relDiff(a.f.run(a.theta, permute(a.x, g)), permute(a.f.run(a.theta, a.x), g))).toBeLessThan(1e-12);
        const b = instance(`attention(${d},${heads},grid(${n},${n}))`, n * n, seed);
        expect(relDiff(b.f.run(b.theta, permute(b.x, g)), permute(b.f.run(b.theta, b.x), g))).toBeGreaterThan(1e-4);
      }),
      { numRuns: 20 },
    );
  });

  it('seq(T): the kernel sees k − q only — a window placed anywhere gives the same output, and a causal window’s prefix is the window of the prefix', () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 1, max: 500 }), (seed, s) => {
        for (const geo of ['seq(6)', 'seq(6,causal)', 'seq(6,causal,rotary)']) {
          const a = instance(`attention(${d},${heads},${geo})`, 6, seed);
          const at = (off: number): Tensor => a.f.forward(a.theta, a.x, makeCtx({ positionOffset: off })).y;
          expect(relDiff(at(s), at(0))).toBeLessThan(1e-10);
        }
        // restriction: rows 0…3 of a causal window of 6 are the causal window of the first 4 tokens
        const a = instance(`attention(${d},${heads},seq(6,causal))`, 6, seed);
        const short = parseSpec(`attention(${d},${heads},seq(6,causal))`).at([4, d]);
        const x4 = Tensor.zeros([2, 4, d], 'float64');
        for (let b = 0; b < 2; b++) x4.data.set(a.x.data.subarray(b * 6 * d, (b * 6 + 4) * d), b * 4 * d);
        const y6 = a.f.run(a.theta, a.x),
          y4 = short.run(a.theta, x4);
        for (let b = 0; b < 2; b++) for (let i = 0; i < 4 * d; i++) expect(y4.data[b * 4 * d + i]).toBeCloseTo(y6.data[b * 6 * d + i]!, 12);
      }),
      { numRuns: 10 },
    );
    // negative control: the absolute table sees where the window is
    const abs = instance(`attention(${d},${heads},absolute(600),none)`, 6, 1);
    expect(relDiff(abs.f.forward(abs.theta, abs.x, makeCtx({ positionOffset: 40 })).y, abs.f.run(abs.theta, abs.x))).toBeGreaterThan(1e-3);
  });
});

describe('points(n): attention on a point cloud under E(3) × S(n)', () => {
  const n = 5,
    S = 3,
    C = 2,
    width = 3 + S + 3 * C;
  /** g·x: positions Qx + t, scalars kept, vectors Qv (or kept, for the control), points permuted. */
  function act(x: Tensor, Q: Float64Array, t: readonly number[], perm: readonly number[], rotateVectors = true): Tensor {
    const y = Tensor.zeros(x.shape, 'float64');
    const mv = (src: Float64Array, o: number, shift: readonly number[] | null, dst: Float64Array, p: number): void => {
      for (let r = 0; r < 3; r++) {
        let v = shift ? shift[r]! : 0;
        for (let c = 0; c < 3; c++) v += Q[r * 3 + c]! * src[o + c]!;
        dst[p + r] = v;
      }
    };
    for (let b = 0; b < x.batch; b++)
      for (let i = 0; i < n; i++) {
        const o = (b * n + i) * width,
          p = (b * n + perm[i]!) * width;
        mv(x.data as Float64Array, o, t, y.data as Float64Array, p);
        for (let k = 0; k < S; k++) y.data[p + 3 + k] = x.data[o + 3 + k]!;
        for (let c = 0; c < C; c++) {
          if (rotateVectors) mv(x.data as Float64Array, o + 3 + S + 3 * c, null, y.data as Float64Array, p + 3 + S + 3 * c);
          else for (let a = 0; a < 3; a++) y.data[p + 3 + S + 3 * c + a] = x.data[o + 3 + S + 3 * c + a]!;
        }
      }
    return y;
  }
  it('f(g·x) = g·f(x) for random rotations, reflections, translations and permutations; rotating the positions but not the vectors breaks it', () => {
    const f = parseSpec(`attention(${S}x0e+${C}x1o,2,points(${n})) >> attention(${S}x0e+${C}x1o,2,points(${n}))`);
    fc.assert(
      fc.property(seeds, (seed) => {
        const rng = new Rng(seed);
        const theta = f.params
          .map((p) => randn(p.shape, rng).data)
          .map(
            (v, i) =>
              new Tensor(
                v.map((a) => a * 0.5),
                [...f.params[i]!.shape],
              ),
          );
        const x = randn([2, n, width], rng);
        const Q = Float64Array.from(O(3).sample(rng).data);
        const t = [rng.normal() * 3, rng.normal() * 3, rng.normal() * 3];
        const perm = rng.shuffle([0, 1, 2, 3, 4]) as number[];
        expect(relDiff(f.run(theta, act(x, Q, t, perm)), act(f.run(theta, x), Q, t, perm))).toBeLessThan(1e-10);
        expect(relDiff(f.run(theta, act(x, Q, t, perm, false)), act(f.run(theta, x), Q, t, perm))).toBeGreaterThan(1e-3);
      }),
      { numRuns: 10 },
    );
  });
});
