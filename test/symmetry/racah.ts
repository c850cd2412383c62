/**
 * The closed forms the derived Clebsch–Gordan coefficients are checked against: Racah's formula
 * for the complex coefficients ⟨ℓ₁m₁ ℓ₂m₂|ℓ₃m₃⟩ (Condon–Shortley phases; Edmonds, Angular
 * Momentum in Quantum Mechanics, eq. 3.6.11), carried into the real basis of the spherical
 * harmonics by Y_real = U Y_complex with (Wikipedia, "Spherical harmonics", real form)
 *   m > 0: Y_ℓm = ((−1)^m Y^m + Y^{−m})/√2,  m = 0: Y^0,  m < 0: Y_ℓm = i(Y^m − (−1)^m Y^{−m})/√2,
 * so the real intertwiner is U₃ K (U₁ ⊗ U₂)†, up to one overall phase.
 */
const fact = (n: number): number => {
  let f = 1;
  for (let k = 2; k <= n; k++) f *= k;
  return f;
};

export function racah(j1: number, m1: number, j2: number, m2: number, J: number, M: number): number {
  if (m1 + m2 !== M || Math.abs(m1) > j1 || Math.abs(m2) > j2 || Math.abs(M) > J) return 0;
  const pre = Math.sqrt(((2 * J + 1) * fact(J + j1 - j2) * fact(J - j1 + j2) * fact(j1 + j2 - J)) / fact(j1 + j2 + J + 1));
  const pre2 = Math.sqrt(fact(J + M) * fact(J - M) * fact(j1 - m1) * fact(j1 + m1) * fact(j2 - m2) * fact(j2 + m2));
  let s = 0;
  for (let k = 0; k <= j1 + j2 + J; k++) {
    const a = [k, j1 + j2 - J - k, j1 - m1 - k, j2 + m2 - k, J - j2 + m1 + k, J - j1 - m2 + k];
    if (a.some((v) => v < 0)) continue;
    s += (k % 2 ? -1 : 1) / a.reduce((p, v) => p * fact(v), 1);
  }
  return pre * pre2 * s;
}

type C = [number, number];
const cmul = (a: C, b: C): C => [a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0]];
const conj = (a: C): C => [a[0], -a[1]];

/** U for ℓ: rows real index m (−ℓ…ℓ), columns complex index. */
function realFromComplex(l: number): C[][] {
  const d = 2 * l + 1,
    U: C[][] = Array.from({ length: d }, () => Array.from({ length: d }, (): C => [0, 0]));
  const r = Math.SQRT1_2;
  for (let m = -l; m <= l; m++) {
    const row = U[l + m]!,
      sg = m % 2 === 0 ? 1 : -1;
    if (m > 0) {
      row[l + m] = [sg * r, 0];
      row[l - m] = [r, 0];
    } else if (m === 0) row[l] = [1, 0];
    else {
      row[l + m] = [0, r];
      row[l - m] = [0, -sg * r];
    }
  }
  return U;
}

/** C_real[m₁][m₂][m₃] from Racah's formula, made real (one global phase removed) and of norm 1. */
export function clebschGordanRealFromRacah(l1: number, l2: number, l3: number): Float64Array {
  const U1 = realFromComplex(l1),
    U2 = realFromComplex(l2),
    U3 = realFromComplex(l3);
  const d1 = 2 * l1 + 1,
    d2 = 2 * l2 + 1,
    d3 = 2 * l3 + 1;
  const out: C[] = [];
  for (let a = 0; a < d1; a++)
    for (let b = 0; b < d2; b++)
      for (let c = 0; c < d3; c++) {
        // K_real[c][(a,b)] = Σ U3[c][n] K[n][(i,k)] conj(U1[a][i]) conj(U2[b][k])
        let s: C = [0, 0];
        for (let n = 0; n < d3; n++)
          for (let i = 0; i < d1; i++)
            for (let k = 0; k < d2; k++) {
              const K = racah(l1, i - l1, l2, k - l2, l3, n - l3);
              if (K === 0) continue;
              s = ((t: C): C => [s[0] + t[0], s[1] + t[1]])(cmul(cmul(U3[c]![n]!, conj(U1[a]![i]!)), conj(U2[b]![k]!)).map((v) => v * K) as C);
            }
        out.push(s);
      }
  // remove the global phase: divide by the phase of the largest entry
  const big = out.reduce((m, v) => (Math.hypot(...v) > Math.hypot(...m) ? v : m), [0, 0] as C);
  const ph: C = [big[0] / Math.hypot(...big), -big[1] / Math.hypot(...big)];
  const re = out.map((v) => cmul(v, ph));
  if (re.some((v) => Math.abs(v[1]) > 1e-12)) throw new Error(`Racah CG ${l1},${l2},${l3} is not real after removing one phase`);
  const norm = Math.sqrt(re.reduce((t, v) => t + v[0] * v[0], 0));
  return Float64Array.from(re, (v) => v[0] / norm);
}
