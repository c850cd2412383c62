import { describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/rng.js';
import { basisMatrix, equivariantBasis } from '../../src/symmetry/solve/solver.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import type { Mat } from '../../src/linalg/matrix.js';

const derive = (g: string, i: string, o: string) => equivariantBasis(parseGroup(g), parseRep(i), parseRep(o));

/** Least-squares residual of y against the span of the columns fs (small normal equations). */
function fitResidual(fs: number[][], y: number[]): number {
  const k = fs.length;
  const A = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => fs[i]!.reduce((s, v, t) => s + v * fs[j]![t]!, 0)));
  const b = fs.map((f) => f.reduce((s, v, t) => s + v * y[t]!, 0));
  // Gaussian elimination
  for (let c = 0; c < k; c++) {
    let p = c;
    for (let r = c + 1; r < k; r++) if (Math.abs(A[r]![c]!) > Math.abs(A[p]![c]!)) p = r;
    [A[c], A[p]] = [A[p]!, A[c]!];
    [b[c], b[p]] = [b[p]!, b[c]!];
    for (let r = 0; r < k; r++) {
      if (r === c) continue;
      const f = A[r]![c]! / A[c]![c]!;
      for (let j = 0; j < k; j++) A[r]![j]! -= f * A[c]![j]!;
      b[r]! -= f * b[c]!;
    }
  }
  const x = b.map((v, i) => v / A[i]![i]!);
  const res = y.map((v, t) => v - fs.reduce((s, f, i) => s + x[i]! * f[t]!, 0));
  return Math.sqrt(res.reduce((s, v) => s + v * v, 0)) / Math.max(1, Math.sqrt(y.reduce((s, v) => s + v * v, 0)));
}

const entries = (m: Mat): number[] => Array.from(m.data);

describe('translations → convolution weight tying K(q,k) = κ(k − q)', () => {
  it('1-D periodic grid: the basis is the n circulant diagonals', () => {
    const n = 8;
    const b = derive(`Trans(${n})`, 'V', 'V');
    expect(b.dim).toBe(n);
    const seen = new Set<number>();
    for (let k = 0; k < b.dim; k++) {
      const K = basisMatrix(b, k);
      // constant along one wrapped diagonal k − q ≡ δ, zero elsewhere
      let delta = -1;
      for (let q = 0; q < n; q++)
        for (let c = 0; c < n; c++) {
          const v = K.data[q * n + c]!;
          if (v !== 0) {
            const d = (c - q + n) % n;
            if (delta < 0) delta = d;
            expect(d).toBe(delta);
            expect(v).toBeCloseTo(1 / Math.sqrt(n), 12);
          }
        }
      seen.add(delta);
    }
    expect(seen.size).toBe(n);
  });
  it('2-D periodic grid: K((r,c),(r′,c′)) depends only on (r′−r, c′−c)', () => {
    const h = 4,
      w = 5,
      N = h * w;
    const b = derive(`Trans(${h},${w})`, 'V', 'V');
    expect(b.dim).toBe(N);
    for (let k = 0; k < b.dim; k++) {
      const K = basisMatrix(b, k);
      const offsets = new Set<string>();
      for (let p = 0; p < N; p++)
        for (let q = 0; q < N; q++)
          if (K.data[p * N + q] !== 0) offsets.add(`${(Math.floor(q / w) - Math.floor(p / w) + h) % h},${((q % w) - (p % w) + w) % w}`);
      expect(offsets.size).toBe(1);
    }
  });
});

describe('S(n) on V → V: DeepSets, K = αI + β11ᵀ', () => {
  for (const n of [2, 3, 5, 9]) {
    it(`S(${n}): dimension 2, spanned by I and 11ᵀ`, () => {
      const b = derive(`S(${n})`, 'V', 'V');
      expect(b.dim).toBe(n === 1 ? 1 : 2);
      const I = Array.from({ length: n * n }, (_, t) => (Math.floor(t / n) === t % n ? 1 : 0));
      const J = Array.from({ length: n * n }, () => 1);
      for (let k = 0; k < b.dim; k++) expect(fitResidual([I, J], entries(basisMatrix(b, k)))).toBeLessThan(1e-12);
      // and they span both: I and 11ᵀ are in the span of the basis
      const B = Array.from({ length: b.dim }, (_, k) => entries(basisMatrix(b, k)));
      expect(fitResidual(B, I)).toBeLessThan(1e-12);
      expect(fitResidual(B, J)).toBeLessThan(1e-12);
    });
  }
});

describe('SO(2): circular harmonics cos(ℓφ), sin(ℓφ) times radial profiles', () => {
  // A degree-k polynomial kernel K(x) = B·x^⊗k with B ∈ Hom_SO(2)(T(k), out). Evaluated on
  // x = r(cos φ, sin φ) its angular dependence must be circular harmonics of the orders allowed.
  const evalKernel = (B: Mat, k: number, x: [number, number]): number[] => {
    let t = [1];
    for (let j = 0; j < k; j++) t = t.flatMap((a) => [a * x[0], a * x[1]]);
    return Array.from({ length: B.rows }, (_, i) => t.reduce((s, v, c) => s + v * B.data[i * B.cols + c]!, 0));
  };
  const phis = Array.from({ length: 24 }, (_, i) => (2 * Math.PI * i) / 24 + 0.1);
  it('scalar → V kernels (T(3) → V): r³·[cos φ, sin φ] and r³·[−sin φ, cos φ] (order 1)', () => {
    const b = derive('SO(2)', 'T(3)', 'V');
    expect(b.dim).toBeGreaterThan(0);
    const r = 1.7;
    const h1 = phis.flatMap((p) => [r ** 3 * Math.cos(p), r ** 3 * Math.sin(p)]);
    const h2 = phis.flatMap((p) => [-(r ** 3) * Math.sin(p), r ** 3 * Math.cos(p)]);
    const span: number[][] = [];
    for (let k = 0; k < b.dim; k++) {
      const y = phis.flatMap((p) => evalKernel(basisMatrix(b, k), 3, [r * Math.cos(p), r * Math.sin(p)]));
      expect(fitResidual([h1, h2], y)).toBeLessThan(1e-10);
      span.push(y);
    }
    expect(fitResidual(span, h1) + fitResidual(span, h2)).toBeLessThan(1e-10);
  });
  it('V → V kernels (T(2) → T(2)): orders 0 and 2 only', () => {
    const b = derive('SO(2)', 'T(2)', 'T(2)');
    const r = 0.8;
    const orders = (l: number): number[][] => {
      const c = (p: number) => Math.cos(l * p),
        s = (p: number) => Math.sin(l * p);
      if (l === 0) return [phis.flatMap(() => [1, 0, 0, 1]), phis.flatMap(() => [0, -1, 1, 0])].map((f) => f.map((v) => v * r * r));
      return [phis.flatMap((p) => [c(p), s(p), s(p), -c(p)]), phis.flatMap((p) => [-s(p), c(p), c(p), s(p)])].map((f) => f.map((v) => v * r * r));
    };
    const allowed = [...orders(0), ...orders(2)];
    for (let k = 0; k < b.dim; k++) {
      const y = phis.flatMap((p) => evalKernel(basisMatrix(b, k), 2, [r * Math.cos(p), r * Math.sin(p)]));
      expect(fitResidual(allowed, y)).toBeLessThan(1e-10);
      expect(fitResidual(orders(0), y)).toBeGreaterThan(-1); // sanity
    }
    // every allowed harmonic is reached
    const span = Array.from({ length: b.dim }, (_, k) => phis.flatMap((p) => evalKernel(basisMatrix(b, k), 2, [r * Math.cos(p), r * Math.sin(p)])));
    for (const h of allowed) expect(fitResidual(span, h)).toBeLessThan(1e-10);
    // order 1 is absent
    const o1 = phis.flatMap((p) => [Math.cos(p), 0, 0, 0]);
    expect(fitResidual(span, o1)).toBeGreaterThan(0.1);
  });
  it('SO(2) on V → V is span{I, J}: rotations and scalings commute with rotations', () => {
    const b = derive('SO(2)', 'V', 'V');
    expect(b.dim).toBe(2);
    for (let k = 0; k < 2; k++)
      expect(
        fitResidual(
          [
            [1, 0, 0, 1],
            [0, -1, 1, 0],
          ],
          entries(basisMatrix(b, k)),
        ),
      ).toBeLessThan(1e-12);
  });
});

describe('SO(3): invariant kernels are Legendre series Σ a_ℓ P_ℓ(x·y)', () => {
  const P = [(t: number) => 1, (t: number) => t, (t: number) => (3 * t * t - 1) / 2, (t: number) => (5 * t ** 3 - 3 * t) / 2];
  const unit = (rng: Rng): number[] => {
    const v = [rng.normal(), rng.normal(), rng.normal()];
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  for (const l of [1, 2, 3]) {
    it(`K(x,y) = B·(x^⊗${l} ⊗ y^⊗${l}), B ∈ Hom_SO(3)(T(${2 * l}), T(0)), is a combination of P_ℓ(x·y), ℓ ≤ ${l}, ℓ ≡ ${l} mod 2`, () => {
      const b = derive('SO(3)', `T(${2 * l})`, 'T(0)');
      const rng = new Rng(3);
      const pairs = Array.from({ length: 30 }, () => [unit(rng), unit(rng)] as const);
      const feats = (x: readonly number[], y: readonly number[]): number[] => {
        let t = [1];
        for (let j = 0; j < l; j++) t = t.flatMap((a) => x.map((v) => a * v));
        for (let j = 0; j < l; j++) t = t.flatMap((a) => y.map((v) => a * v));
        return t;
      };
      const allowed = P.slice(0, l + 1).filter((_, ell) => ell % 2 === l % 2);
      const legendre = allowed.map((p) => pairs.map(([x, y]) => p(x.reduce((s, v, i) => s + v * y[i]!, 0))));
      const span: number[][] = [];
      for (let k = 0; k < b.dim; k++) {
        const B = basisMatrix(b, k).data;
        const Kxy = pairs.map(([x, y]) => feats(x, y).reduce((s, v, c) => s + v * B[c]!, 0));
        expect(fitResidual(legendre, Kxy)).toBeLessThan(1e-9);
        span.push(Kxy);
      }
      for (const f of legendre) expect(fitResidual(span, f)).toBeLessThan(1e-9);
    });
  }
  it('the cross product is the SO(3) map T(2) → V, and it is absent for O(3)', () => {
    const b = derive('SO(3)', 'T(2)', 'V');
    expect(b.dim).toBe(1);
    const W = basisMatrix(b, 0).data;
    const eps = (k: number, i: number, j: number): number => ((i - j) * (j - k) * (k - i)) / 2;
    const sign = Math.sign(W[0 * 9 + 1 * 3 + 2]!);
    for (let k = 0; k < 3; k++)
      for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(W[k * 9 + i * 3 + j]!).toBeCloseTo((sign * eps(k, i, j)) / Math.sqrt(6), 12);
    expect(derive('O(3)', 'T(2)', 'V').dim).toBe(0);
  });
});
