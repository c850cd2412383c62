import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/rng.js';
import { equivariantBasis, basisMatrix } from '../../src/symmetry/solve/solver.js';
import { translations1d, dihedral } from '../../src/symmetry/group/group.js';
import { V } from '../../src/symmetry/group/rep.js';
import { applyRope, ropeFrequencies } from '../../src/symmetry/group/rotary.js';
import {
  attentionDimension,
  attentionElements,
  deriveAttention,
  derivePoints,
  deriveRotary,
  finiteAction,
  finiteKernelBytes,
  finiteKernels,
  geometryText,
  kernelMatrix,
  parseGeometry,
  pathText,
  rotaryMatrix,
  rotaryScore,
} from '../../src/symmetry/geometry/index.js';
import type { FiniteKernels } from '../../src/symmetry/geometry/index.js';
import { relativeBias, relativeBuckets } from '../../src/nn/attention-position.js';

/** The kernels of a finite geometry. */
const kernelsOf = (text: string): FiniteKernels => {
  const d = deriveAttention(text);
  if (d.kind !== 'finite') throw new Error(`${text} is not finite`);
  return d.kernels;
};

/** The rank of a list of vectors, by Gram–Schmidt twice over (tolerance 1e-9 relative to each vector). */
const rankOf = (rows: readonly Float64Array[]): number => {
  const kept: Float64Array[] = [];
  for (const r of rows) {
    const v = Float64Array.from(r);
    const norm0 = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    for (let pass = 0; pass < 2; pass++)
      for (const u of kept) {
        const dot = v.reduce((s, x, i) => s + x * u[i]!, 0);
        for (let i = 0; i < v.length; i++) v[i]! -= dot * u[i]!;
      }
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    if (norm > 1e-9 * Math.max(norm0, 1e-300)) kept.push(v.map((x) => x / norm));
  }
  return kept.length;
};

/** Whether two sets of vectors span the same space. */
const sameSpan = (a: readonly Float64Array[], b: readonly Float64Array[]): boolean => {
  const ra = rankOf(a),
    rb = rankOf(b);
  return ra === rb && rankOf([...a, ...b]) === ra;
};

const basisOf = (k: FiniteKernels): Float64Array[] => Array.from({ length: k.dimension }, (_, b) => kernelMatrix(k, b));

describe('declared geometries: parse, print, limits', () => {
  it('prints every form as it parses', () => {
    for (const t of [
      'seq(8)',
      'seq(8,causal)',
      'seq(8,rotary)',
      'seq(8,causal,rotary)',
      'cyclic(5)',
      'grid(3,4)',
      'grid(4,4,D4)',
      'set(6)',
      'points(5)',
      'points(5,2)',
    ])
      expect(geometryText(parseGeometry(t))).toBe(t);
    expect(geometryText(parseGeometry(' seq( 8 , causal ) '))).toBe('seq(8,causal)');
    expect(geometryText(parseGeometry('points(5,1)'))).toBe('points(5)');
  });

  it('refuses what it cannot handle, naming the value and the limit', () => {
    expect(() => parseGeometry('seq(5000)')).toThrow(/T = 5000 positions; at most 4096/);
    expect(() => parseGeometry('grid(65,64)')).toThrow(/H·W = 4160 positions; at most 4096/);
    expect(() => parseGeometry('points(5,9)')).toThrow(/lmax = 9; at most 4/);
    expect(() => parseGeometry('points(300)')).toThrow(/n = 300 points; at most 256/);
    expect(() => parseGeometry('grid(4,5,D4)')).toThrow(/needs a square grid.*4×5/);
    expect(() => parseGeometry('torus(4)')).toThrow(/unknown geometry 'torus'/);
    expect(() => parseGeometry('seq(8,sideways)')).toThrow(/options causal and rotary/);
    expect(() => parseGeometry('seq(0)')).toThrow(/positive integer/);
  });

  it('bounds the cost of a derivation before anything is allocated', () => {
    expect(finiteKernelBytes(4096, 'x')).toBe(16 * 4096 * 4096);
    expect(() => finiteKernelBytes(4096, 'derive seq(4096)', 2 ** 20)).toThrow(/need about 256 MiB; the limit is 1.0 MiB/);
    try {
      deriveAttention('seq(600)', { maxBytes: 2 ** 20 });
      expect.unreachable();
    } catch (e) {
      expect((e as { code: string }).code).toBe('E_TOO_LARGE');
    }
  });
});

describe('the solver derives the kernels of finite geometries (orbits of G on pairs)', () => {
  it('seq(T): one element per offset, 2T − 1, the space of the relative mechanism', () => {
    for (const T of [1, 2, 5, 8]) {
      const k = kernelsOf(`seq(${T})`);
      expect(k.dimension).toBe(2 * T - 1);
      // relative(K = T−1) with mask none: the bias each κ unit puts on a T×T window
      const nb = relativeBuckets(T - 1, false);
      const relative = Array.from({ length: nb }, (_, u) => {
        const kappa = new Float64Array(nb);
        kappa[u] = 1;
        const out = new Float64Array(T * T);
        relativeBias(kappa, 1, T, T, 0, T - 1, false, out);
        return out;
      });
      expect(sameSpan(basisOf(k), relative)).toBe(true);
    }
    expect(attentionElements(deriveAttention('seq(3)'))).toEqual([
      'k − q = 0: 3 pairs',
      'k − q = 1: 2 pairs',
      'k − q = 2: 1 pair',
      'k − q = -1: 2 pairs',
      'k − q = -2: 1 pair',
    ]);
  });

  it('seq(T,causal): one element per look-back, T, the space of the causal relative mechanism on the visible pairs', () => {
    const T = 6;
    const k = kernelsOf(`seq(${T},causal)`);
    expect(k.dimension).toBe(T);
    for (let q = 0; q < T; q++) for (let j = 0; j < T; j++) expect(k.label[q * T + j]! >= 0).toBe(j <= q);
    const nb = relativeBuckets(T - 1, true);
    const relative = Array.from({ length: nb }, (_, u) => {
      const kappa = new Float64Array(nb);
      kappa[u] = 1;
      const out = new Float64Array(T * T);
      relativeBias(kappa, 1, T, T, 0, T - 1, true, out);
      for (let q = 0; q < T; q++) for (let j = q + 1; j < T; j++) out[q * T + j] = 0; // hidden pairs
      return out;
    });
    expect(sameSpan(basisOf(k), relative)).toBe(true);
  });

  it('cyclic(T): the circulant matrices, the end of Trans(T) on V → V', () => {
    for (const T of [3, 7, 8]) {
      const k = kernelsOf(`cyclic(${T})`);
      expect(k.dimension).toBe(T);
      for (const m of basisOf(k)) for (let q = 0; q < T; q++) for (let j = 0; j < T; j++) expect(m[q * T + j]).toBe(m[((q + 1) % T) * T + ((j + 1) % T)]);
      const solver = equivariantBasis(translations1d(T), V, V);
      expect(
        sameSpan(
          basisOf(k),
          Array.from({ length: solver.dim }, (_, b) => basisMatrix(solver, b).data),
        ),
      ).toBe(true);
    }
  });

  it('set(n): αI + β11ᵀ, the end of S(n) (DeepSets)', () => {
    for (const n of [2, 3, 6]) {
      const k = kernelsOf(`set(${n})`);
      expect(k.dimension).toBe(2);
      const I = Float64Array.from({ length: n * n }, (_, x) => (Math.floor(x / n) === x % n ? 1 : 0));
      const ones = new Float64Array(n * n).fill(1);
      expect(sameSpan(basisOf(k), [I, ones])).toBe(true);
    }
    expect(kernelsOf('set(1)').dimension).toBe(1);
  });

  it('grid(H,W): one element per 2-D offset; grid(n,n,D4): the offsets up to the square’s symmetries', () => {
    const k = kernelsOf('grid(3,4)');
    expect(k.dimension).toBe(5 * 7);
    for (const m of basisOf(k)) {
      // constant on pairs with the same offset
      const seen = new Map<string, number>();
      for (let q = 0; q < 12; q++)
        for (let j = 0; j < 12; j++) {
          const key = `${Math.floor(j / 4) - Math.floor(q / 4)},${(j % 4) - (q % 4)}`;
          if (seen.has(key)) expect(m[q * 12 + j]).toBe(seen.get(key));
          else seen.set(key, m[q * 12 + j]!);
        }
    }
    // offsets (a, b) with |a|, |b| < n up to D4: the pairs 0 ≤ b ≤ a < n
    for (const n of [2, 3, 5]) expect(kernelsOf(`grid(${n},${n},D4)`).dimension).toBe((n * (n + 1)) / 2);
  });

  it('every kernel is invariant under random group elements, and a kernel that sees absolute position is not (negative control)', () => {
    const rng = new Rng(3);
    // D(4) acting on the 4×4 grid's points as the square's symmetries; cyclic shifts of cyclic(7); permutations of set(5)
    const square = (n: number, p: number, rot: number, flip: boolean): number => {
      let r = Math.floor(p / n),
        c = p % n;
      if (flip) c = n - 1 - c;
      for (let t = 0; t < rot; t++) [r, c] = [c, n - 1 - r];
      return r * n + c;
    };
    const cases: { text: string; N: number; act: () => (p: number) => number }[] = [
      {
        text: 'cyclic(7)',
        N: 7,
        act: () => {
          const s = rng.int(7);
          return (p) => (p + s) % 7;
        },
      },
      {
        text: 'set(5)',
        N: 5,
        act: () => {
          const s = rng.shuffle([0, 1, 2, 3, 4]);
          return (p) => s[p]!;
        },
      },
      {
        text: 'grid(4,4,D4)',
        N: 16,
        act: () => {
          const r = rng.int(4),
            f = rng.uniform() < 0.5;
          return (p) => square(4, p, r, f);
        },
      },
    ];
    for (const c of cases) {
      const k = kernelsOf(c.text);
      for (let trial = 0; trial < 5; trial++) {
        const g = c.act();
        for (let q = 0; q < c.N; q++) for (let j = 0; j < c.N; j++) expect(k.label[g(q) * c.N + g(j)]).toBe(k.label[q * c.N + j]);
      }
    }
    // translations of seq(8) and grid(3,4), where both points stay in the window
    const seq = kernelsOf('seq(8)');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 7 }), fc.integer({ min: -7, max: 7 }), (q, j, s) => {
        if (q + s < 0 || q + s > 7 || j + s < 0 || j + s > 7) return;
        expect(seq.label[(q + s) * 8 + j + s]).toBe(seq.label[q * 8 + j]);
      }),
    );
    // negative controls: the grid's translation kernels are not invariant under a quarter turn,
    // and the kernels of a geometry without symmetry (every pair its own orbit) are not under shifts
    const plain = kernelsOf('grid(4,4)');
    expect([...Array(256).keys()].some((x) => plain.label[square(4, Math.floor(x / 16), 1, false) * 16 + square(4, x % 16, 1, false)] !== plain.label[x])).toBe(
      true,
    );
    const none = finiteKernels({ ...finiteAction({ kind: 'seq', T: 8, causal: false, rotary: false }), generators: [] }, 'no symmetry');
    expect(none.dimension).toBe(64);
    expect(none.label[1 * 8 + 2]).not.toBe(none.label[0 * 8 + 1]);
  });

  it('the orbits agree with the end the solver computes for a permutation group (D(6) on 6 points)', () => {
    const G = dihedral(6);
    const b = equivariantBasis(G, V, V);
    const k = finiteKernels({ points: 6, generators: G.perms!, pairKey: () => 0, keyText: () => '', keyOf: '' }, 'D(6)');
    expect(k.dimension).toBe(b.dim);
    expect(
      sameSpan(
        basisOf(k),
        Array.from({ length: b.dim }, (_, x) => basisMatrix(b, x).data),
      ),
    ).toBe(true);
  });
});

describe('the rotary representation, derived', () => {
  it('is ⊕ψ₁(m·ωᵢ) with RoPE’s frequencies; its invariant forms are span{Iᵢ, Jᵢ}, dimension dh', () => {
    for (const dh of [2, 4, 8, 16]) {
      const r = deriveRotary(dh);
      expect(r.dimension).toBe(dh);
      expect(r.residual).toBeLessThan(1e-12);
      // every form commutes with ρ(m): ρ(m)ᵀBρ(m) = B
      for (const m of [1, 7, 123]) {
        const R = rotaryMatrix(r.frequencies, m).data;
        for (let b = 0; b < r.dimension; b++) {
          const B = r.forms.subarray(b * dh * dh, (b + 1) * dh * dh);
          for (let i = 0; i < dh; i++)
            for (let j = 0; j < dh; j++) {
              let v = 0;
              for (let a = 0; a < dh; a++) for (let c = 0; c < dh; c++) v += R[a * dh + i]! * B[a * dh + c]! * R[c * dh + j]!;
              expect(v).toBeCloseTo(B[i * dh + j]!, 12);
            }
        }
      }
    }
  });

  it('reproduces RoPE’s scores: ⟨ρ(m)q, ρ(n)k⟩ equals the score of queries and keys rotated by RoPE', () => {
    const dh = 8,
      r = deriveRotary(dh);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 2000 }), fc.integer({ min: 0, max: 1000 }), (m, n, seed) => {
        const rng = new Rng(seed);
        const q = Float64Array.from({ length: dh }, () => rng.normal()),
          k = Float64Array.from({ length: dh }, () => rng.normal());
        const rq = Float64Array.from(q),
          rk = Float64Array.from(k);
        applyRope(rq, 1, dh, ropeFrequencies(dh), m);
        applyRope(rk, 1, dh, ropeFrequencies(dh), n);
        const rope = rq.reduce((s, v, i) => s + v * rk[i]!, 0);
        expect(rotaryScore(r, q, m, k, n)).toBeCloseTo(rope, 9);
      }),
      { numRuns: 50 },
    );
  });

  it('every invariant form keeps the score a function of n − m; a form outside the end does not (negative control)', () => {
    const dh = 6,
      r = deriveRotary(dh),
      rng = new Rng(5);
    const q = Float64Array.from({ length: dh }, () => rng.normal()),
      k = Float64Array.from({ length: dh }, () => rng.normal());
    const inside = Float64Array.from({ length: dh * dh }, (_, x) =>
      [...Array(r.dimension).keys()].reduce((s, b) => s + (b + 1) * r.forms[b * dh * dh + x]!, 0),
    );
    const outside = Float64Array.from({ length: dh * dh }, () => rng.normal());
    const shift = (B: Float64Array): number => Math.abs(rotaryScore(r, q, 3, k, 10, B) - rotaryScore(r, q, 3 + 41, k, 10 + 41, B));
    expect(shift(inside)).toBeLessThan(1e-9);
    expect(shift(outside)).toBeGreaterThan(1e-3);
  });
});

describe('points(n, lmax): the invariant of a pair and the value maps', () => {
  it('derives one invariant bilinear form on V, δ/√3 (so |r|²), and the Clebsch–Gordan paths up to lmax', () => {
    const p = derivePoints(5, 1);
    expect(p.invariantForms.length).toBe(1);
    const f = p.invariantForms[0]!;
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(Math.abs(f[i * 3 + j]!)).toBeCloseTo(i === j ? 1 / Math.sqrt(3) : 0, 12);
    expect(p.valueMaps.map(pathText)).toEqual(['0e ⊗ Y_0 → 0e', '0e ⊗ Y_1 → 1o', '1o ⊗ Y_0 → 1o', '1o ⊗ Y_1 → 0e']);
    const p2 = derivePoints(5, 2).valueMaps.map(pathText);
    expect(p2).toContain('1o ⊗ Y_1 → 2e');
    expect(p2).toContain('2e ⊗ Y_2 → 0e');
    expect(p2).not.toContain('1o ⊗ Y_1 → 1o'); // the cross product is a pseudovector (1e)
    expect(derivePoints(5, 0).valueMaps.map(pathText)).toEqual(['0e ⊗ Y_0 → 0e']);
    expect(attentionDimension(deriveAttention('points(5)'))).toBe(16);
  });
});
