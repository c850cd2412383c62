import type { Mat } from '../../linalg/matrix.js';

/**
 * Gauss–Legendre nodes and weights on [−1, 1] (n points, exact for polynomials of degree
 * 2n − 1): the roots of P_n by Newton's method from Chebyshev starting guesses, with weights
 * 2 / ((1 − x²) P_n′(x)²) (Abramowitz & Stegun 25.4.29).
 */
export function gaussLegendre(n: number): { nodes: Float64Array; weights: Float64Array } {
  const nodes = new Float64Array(n),
    weights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let x = Math.cos((Math.PI * (i + 0.75)) / (n + 0.5));
    let dp = 0;
    for (let it = 0; it < 100; it++) {
      // P_n(x) and P_n'(x) by the three-term recurrence
      let p0 = 1,
        p1 = x;
      for (let k = 2; k <= n; k++) [p0, p1] = [p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k];
      const pn = n === 0 ? 1 : n === 1 ? x : p1;
      const pm = n === 1 ? 1 : p0;
      dp = (n * (x * pn - pm)) / (x * x - 1);
      const dx = pn / dp;
      x -= dx;
      if (Math.abs(dx) < 1e-16) break;
    }
    nodes[i] = x;
    weights[i] = 2 / ((1 - x * x) * dp * dp);
  }
  return { nodes, weights };
}

/** Points on the unit sphere (rows of an N×3 matrix) and weights summing to 4π. */
export interface SphereQuadrature {
  readonly points: Mat;
  readonly weights: Float64Array;
}

const cache = new Map<number, SphereQuadrature>();

/**
 * A product rule on S² exact for every polynomial in (x, y, z) of degree ≤ `degree`:
 * Gauss–Legendre in cos θ (⌈(degree+1)/2⌉ nodes) times the trapezoid rule in φ (degree+1
 * equally spaced angles, exact for trigonometric degree ≤ degree). The polar axis is y and φ
 * runs from z towards x, as in e3nn's (α, β) angles — any axis would do.
 */
export function sphereQuadrature(degree: number): SphereQuadrature {
  const hit = cache.get(degree);
  if (hit) return hit;
  const nt = Math.ceil((degree + 1) / 2) + 1,
    np = degree + 1;
  const { nodes, weights: wt } = gaussLegendre(nt);
  const N = nt * np;
  const points = { rows: N, cols: 3, data: new Float64Array(N * 3) };
  const weights = new Float64Array(N);
  let k = 0;
  for (let a = 0; a < nt; a++) {
    const c = nodes[a]!,
      s = Math.sqrt(Math.max(0, 1 - c * c));
    for (let b = 0; b < np; b++, k++) {
      const phi = (2 * Math.PI * b) / np;
      points.data[3 * k] = s * Math.sin(phi);
      points.data[3 * k + 1] = c;
      points.data[3 * k + 2] = s * Math.cos(phi);
      weights[k] = (wt[a]! * 2 * Math.PI) / np;
    }
  }
  const q = { points, weights };
  if (cache.size > 64) cache.clear();
  cache.set(degree, q);
  return q;
}
