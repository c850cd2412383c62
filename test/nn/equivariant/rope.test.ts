import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gradcheck } from '../../../src/para/gradcheck.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { applyRope, ropeAttention, ropeFrequencies } from '../../../src/nn/equivariant/rope.js';
import { permuteAxis, randn, relErr } from '../../symmetry/helpers.js';

const rotateAt = (v: number[], m: number, omega: Float64Array): number[] => {
  const x = Float64Array.from(v);
  applyRope(x, 1, v.length, omega, m);
  return Array.from(x);
};
const dot = (a: number[], b: number[]): number => a.reduce((s, v, i) => s + v * b[i]!, 0);

describe('RoPE (interleaved layout)', () => {
  it('pins the layout: pair (2i, 2i+1) rotates by m·base^(−2i/d)', () => {
    const omega = ropeFrequencies(4);
    expect(omega[0]).toBe(1);
    expect(omega[1]).toBeCloseTo(10000 ** -0.5, 15);
    const y = rotateAt([1, 0, 0, 1], 3, omega);
    expect(y[0]).toBeCloseTo(Math.cos(3), 14);
    expect(y[1]).toBeCloseTo(Math.sin(3), 14);
    expect(y[2]).toBeCloseTo(-Math.sin(3 * omega[1]!), 14);
    expect(y[3]).toBeCloseTo(Math.cos(3 * omega[1]!), 14);
  });
  it('⟨R_{m+s}q, R_{n+s}k⟩ = ⟨R_m q, R_n k⟩ for all shifts s (property)', () => {
    const omega = ropeFrequencies(8);
    const vec = fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: 8, maxLength: 8 });
    fc.assert(
      fc.property(
        vec,
        vec,
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: -500, max: 500 }),
        fc.integer({ min: -5000, max: 5000 }),
        (q, k, m, n, s) => {
          const a = dot(rotateAt(q, m + s, omega), rotateAt(k, n + s, omega));
          const b = dot(rotateAt(q, m, omega), rotateAt(k, n, omega));
          return Math.abs(a - b) <= 1e-8 * (1 + Math.abs(b));
        },
      ),
      { numRuns: 200 },
    );
  });
  it('the score depends on m − n only: ⟨R_m q, R_n k⟩ = ⟨q, R_{n−m} k⟩', () => {
    const omega = ropeFrequencies(6);
    const q = [0.3, -1, 2, 0.5, 1, -0.2],
      k = [1, 0.4, -0.7, 2, 0.1, 0.9];
    expect(dot(rotateAt(q, 7, omega), rotateAt(k, 2, omega))).toBeCloseTo(dot(q, rotateAt(k, -5, omega)), 12);
  });
});

describe('rope_attention', () => {
  it('gradchecks', () => {
    expect(gradcheck(ropeAttention(5, 4)).ok).toBe(true);
    expect(gradcheck(ropeAttention(4, 6, { period: 4 })).ok).toBe(true);
  });
  it('does not depend on absolute position: every position offset gives the same output', () => {
    const f = ropeAttention(6, 8);
    const theta = f.init(1);
    const x = randn([3, 6, 8], 2);
    for (const offset of [1, 17, 1000]) expect(relErr(ropeAttention(6, 8, { offset }).run(theta, x), f.run(theta, x))).toBeLessThan(1e-5);
  });
  it('with period P = T it is equivariant under cyclic shifts of the sequence (Z(T))', () => {
    const T = 6,
      f = ropeAttention(T, 4, { period: T });
    const theta = f.init(3);
    const x = randn([2, T, 4], 4);
    for (const s of [1, 2, 5]) {
      const sh = Array.from({ length: T }, (_, i) => (i + s) % T);
      expect(relErr(f.run(theta, permuteAxis(x, 1, sh)), permuteAxis(f.run(theta, x), 1, sh))).toBeLessThan(1e-5);
    }
  });
  it('parses from and prints to its spec', () => {
    expect(String(parseSpec('rope_attention(6,4,6)'))).toBe('rope_attention(6,4,6)');
    expect(String(parseSpec('rope_attention(6,4)'))).toBe('rope_attention(6,4)');
  });
});

describe('RoPE (half-split layout, GPT-NeoX)', () => {
  const rotateHalf = (v: number[], m: number, omega: Float64Array): number[] => {
    const x = Float64Array.from(v);
    applyRope(x, 1, v.length, omega, m, false, 'half');
    return Array.from(x);
  };
  it("pins the layout: x·cos + rotate_half(x)·sin with rotate_half([x₁, x₂]) = [−x₂, x₁] (Hugging Face's formula)", () => {
    const d = 8,
      omega = ropeFrequencies(d),
      m = 5;
    const x = [0.3, -1, 2, 0.5, 1, -0.2, 0.7, 1.4];
    const h = d / 2,
      rot = [...x.slice(h).map((v) => -v), ...x.slice(0, h)];
    const cos = [...omega, ...omega].map((w) => Math.cos(m * w)),
      sin = [...omega, ...omega].map((w) => Math.sin(m * w));
    const want = x.map((v, i) => v * cos[i]! + rot[i]! * sin[i]!);
    rotateHalf(x, m, omega).forEach((v, i) => expect(v).toBeCloseTo(want[i]!, 14));
  });
  it('is the interleaved RoPE conjugated by the permutation i ↦ 2i, i + d/2 ↦ 2i + 1', () => {
    const d = 6,
      omega = ropeFrequencies(d);
    const vec = fc.array(fc.double({ min: -3, max: 3, noNaN: true }), { minLength: d, maxLength: d });
    fc.assert(
      fc.property(vec, fc.integer({ min: -100, max: 100 }), (x, m) => {
        const toInterleaved = (v: number[]): number[] => {
          const out = new Array<number>(d);
          for (let i = 0; i < d / 2; i++) {
            out[2 * i] = v[i]!;
            out[2 * i + 1] = v[i + d / 2]!;
          }
          return out;
        };
        const a = toInterleaved(rotateHalf(x, m, omega)),
          b = rotateAt(toInterleaved(x), m, omega);
        return a.every((v, i) => Math.abs(v - b[i]!) < 1e-12);
      }),
      { numRuns: 100 },
    );
  });
  it('keeps the relative-position property, and the attention layer with it gradchecks and parses back', () => {
    const omega = ropeFrequencies(4),
      q = [1, 2, -1, 0.5],
      k = [0.3, -0.2, 1, 2];
    expect(dot(rotateHalf(q, 7, omega), rotateHalf(k, 3, omega))).toBeCloseTo(dot(rotateHalf(q, 104, omega), rotateHalf(k, 100, omega)), 10);
    const f = ropeAttention(5, 4, { layout: 'half' });
    expect(gradcheck(f).ok).toBe(true);
    expect(String(f)).toBe('rope_attention(5,4,half)');
    expect(String(parseSpec('rope_attention(5,4,8,half)'))).toBe('rope_attention(5,4,8,half)');
    expect(String(parseSpec('rope_attention(5,4,8)'))).toBe('rope_attention(5,4,8)');
    expect(() => parseSpec('rope_attention(5,4,sideways)')).toThrow(/period \(a number\) or a layout/);
    // the two layouts differ as layers with the same weights (the features are paired differently)
    const x = randn([2, 5, 4], 3, 'float64');
    const g = ropeAttention(5, 4),
      th = g.init(1, 'float64');
    expect(relErr(f.run(th, x), g.run(th, x))).toBeGreaterThan(1e-3);
  });
});
