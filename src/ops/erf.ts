/**
 * The error function erf(x) = 2/√π ∫₀ˣ e^{−t²} dt to about 1e-14, which JavaScript's Math
 * lacks: the Maclaurin series below |x| = 2.5 (its terms stay below e^{6.25}, so the sum keeps
 * thirteen digits), the continued fraction of erfc above (Lentz's method; A&S 7.1.14). GELU as
 * PyTorch exports it is x·Φ(x) = x·(1 + erf(x/√2))/2, and its pullback is exact only if this is.
 */
const TWO_OVER_SQRT_PI = 1.1283791670955126;

export function erf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const a = Math.abs(x);
  if (a < 2.5) {
    // erf x = 2/√π Σ (−1)ⁿ x^{2n+1} / (n! (2n+1))
    const x2 = x * x;
    let term = x,
      sum = x;
    for (let n = 1; n < 60; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return TWO_OVER_SQRT_PI * sum;
  }
  if (a > 6) return Math.sign(x);
  return Math.sign(x) * (1 - erfcLarge(a));
}

/** erfc(a) for a ≥ 2.5: e^{−a²}/√π · 1/(a + 1/2/(a + 1/(a + 3/2/(a + …)))). */
function erfcLarge(a: number): number {
  // the continued fraction erfc(a) = e^{−a²}/√π · 1/(a + (1/2)/(a + 1/(a + (3/2)/(a + 2/(a + …))))) by Lentz's method
  const tiny = 1e-300;
  let f = a,
    C = a,
    D = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    D = a + an * D;
    D = D === 0 ? tiny : 1 / D;
    C = a + an / C;
    if (C === 0) C = tiny;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-a * a) / Math.sqrt(Math.PI) / f;
}
