// The reference backend's scalar definitions, which every backend's suite is measured
// against, checked on their own: f′ against central differences of f in float64, and the
// numerically careful branches (sigmoid, softplus) against the naive formulas.
import { describe, expect, it } from 'vitest';
import { applyUnary, jsBackend, unaryDerivative } from '../../src/tensor/js-backend.js';
import { naiveGemm, randomF32, UNARY_OPS } from './backend-suite.js';
import { Rng } from '../../src/random/rng.js';

describe('reference scalar definitions', () => {
  it.each(UNARY_OPS)('%s: unaryDerivative is the derivative of applyUnary (central differences)', (op) => {
    for (const x of [-4.1, -1.3, -0.2, 0.05, 0.7, 2.2, 5.3]) {
      const h = 1e-5;
      const fd = (applyUnary(op, x + h) - applyUnary(op, x - h)) / (2 * h);
      expect(Math.abs(unaryDerivative(op, x, applyUnary(op, x)) - fd)).toBeLessThan(1e-7 * Math.max(1, Math.abs(fd)));
    }
  });

  it('sigmoid and softplus agree with the naive formulas and stay finite far out', () => {
    for (const x of [-30, -3, 0, 3, 30]) {
      expect(applyUnary('sigmoid', x)).toBeCloseTo(1 / (1 + Math.exp(-x)), 14);
      expect(applyUnary('softplus', x)).toBeCloseTo(Math.log(1 + Math.exp(x)), 12);
    }
    expect(applyUnary('sigmoid', -800)).toBe(0);
    expect(applyUnary('softplus', 800)).toBe(800);
  });
});

describe('reference gemm: direct loop and packed 4×4 path meet at the size threshold', () => {
  it('products just below and above the packing threshold (m·n·k = 4096) agree with float64', () => {
    const rng = new Rng(1);
    for (const [m, n, k] of [
      [16, 16, 16],
      [16, 16, 17],
      [4, 4, 257],
      [5, 9, 300],
      [3, 200, 20],
    ] as const) {
      for (const [tA, tB] of [
        [false, false],
        [true, false],
        [false, true],
        [true, true],
      ] as const) {
        const a = randomF32(m * k, rng),
          b = randomF32(k * n, rng),
          c = new Float32Array(m * n);
        jsBackend.gemm(tA, tB, m, n, k, a, b, c, false);
        const { c: want, mag } = naiveGemm(tA, tB, m, n, k, a, b);
        c.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual((k + 2) * 2 ** -23 * mag[i]! + 1e-30));
      }
    }
  });
});
