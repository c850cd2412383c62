import { RangeArgError } from '../../errors.js';

/**
 * How the real spherical harmonics are scaled (e3nn's three options):
 * - `integral`: orthonormal on the sphere, ∫_{S²} Y_ℓm Y_ℓ′m′ dΩ = δ_ℓℓ′ δ_mm′;
 * - `component`: ‖Y_ℓ(x)‖² = 2ℓ+1 on the unit sphere (integral × √(4π));
 * - `norm`: ‖Y_ℓ(x)‖ = 1 on the unit sphere (integral × √(4π/(2ℓ+1))).
 */
export type ShNormalization = 'integral' | 'component' | 'norm';

/** The largest ℓ the spherical harmonics are computed for (the recurrences stay accurate well beyond). */
export const MAX_SH_L = 16;

/** The number of values Y_0 … Y_lmax: (lmax + 1)². */
export const shDim = (lmax: number): number => (lmax + 1) * (lmax + 1);

function checkLmax(lmax: number): void {
  if (!(Number.isInteger(lmax) && lmax >= 0 && lmax <= MAX_SH_L))
    throw new RangeArgError(`spherical harmonics need an integer lmax in 0 … ${MAX_SH_L}, got ${lmax}`);
}

const norms = new Map<string, Float64Array>();

/** N_ℓm · (normalisation factor) for index ℓ² + ℓ + m. */
function shScale(lmax: number, normalization: ShNormalization): Float64Array {
  const key = `${lmax}|${normalization}`;
  let s = norms.get(key);
  if (s) return s;
  s = new Float64Array(shDim(lmax));
  for (let l = 0; l <= lmax; l++) {
    const extra = normalization === 'component' ? Math.sqrt(4 * Math.PI) : normalization === 'norm' ? Math.sqrt((4 * Math.PI) / (2 * l + 1)) : 1;
    for (let m = -l; m <= l; m++) {
      const a = Math.abs(m);
      let ratio = 1; // (ℓ−|m|)!/(ℓ+|m|)!
      for (let k = l - a + 1; k <= l + a; k++) ratio /= k;
      s[l * l + l + m] = extra * Math.sqrt(((2 * l + 1) / (4 * Math.PI)) * ratio) * (m === 0 ? 1 : Math.SQRT2);
    }
  }
  norms.set(key, s);
  return s;
}

/**
 * Real spherical harmonics Y_ℓm, ℓ = 0 … lmax, m = −ℓ … ℓ (index ℓ² + ℓ + m), of n points
 * (rows of an n×3 array) into `out` (n × (lmax+1)²), and optionally their derivatives with
 * respect to the input coordinates into `grad` (n × (lmax+1)² × 3).
 *
 * The basis is e3nn's: Wikipedia's table of real spherical harmonics (no Condon–Shortley phase)
 * evaluated at (x′, y′, z′) = (z, x, y), so that Y_1 ∝ (x, y, z) and Y_ℓ(Rx) = D^ℓ(R) Y_ℓ(x)
 * with D^1(R) = R. Computed by the recurrences of the solid harmonics r^ℓ Y_ℓm, which are
 * polynomials (no angles, no poles): with ρ^m e^{imφ} = (x′ + iy′)^m and
 * r^ℓ P_ℓ^m(cos θ) = ρ^m Π_ℓ^m, Π_m^m = (2m−1)!!, Π_{m+1}^m = (2m+1) z′ Π_m^m,
 * (ℓ−m) Π_ℓ^m = (2ℓ−1) z′ Π_{ℓ−1}^m − (ℓ+m−1) r² Π_{ℓ−2}^m (Abramowitz & Stegun 8.5.3),
 * Y_ℓm = N_ℓ|m| Π_ℓ^|m| · (Re (x′+iy′)^m for m > 0, 1 for m = 0, Im (x′+iy′)^|m| for m < 0),
 * N_ℓm = √((2ℓ+1)/4π · (ℓ−|m|)!/(ℓ+|m|)!) · (√2 if m ≠ 0).
 *
 * With `normalize` (the default) each point is first divided by its length (a zero vector
 * gives Y = 0 beyond ℓ = 0 and zero derivatives), as e3nn's `normalize=True`; without it the
 * values are the solid harmonics |x|^ℓ Y_ℓ(x/|x|).
 */
export function sphericalHarmonics(
  lmax: number,
  xyz: ArrayLike<number>,
  n: number,
  opts: { normalization?: ShNormalization; normalize?: boolean; out?: Float64Array | Float32Array; grad?: Float64Array | Float32Array } = {},
): Float64Array | Float32Array {
  checkLmax(lmax);
  const D = shDim(lmax);
  const out = opts.out ?? new Float64Array(n * D);
  const grad = opts.grad;
  const scale = shScale(lmax, opts.normalization ?? 'integral');
  const normalize = opts.normalize ?? true;
  // per point: A_m, B_m (m ≤ lmax) and Π_ℓ^m as values with three partial derivatives [v, ∂x, ∂y, ∂z]
  const L1 = lmax + 1;
  const A = new Float64Array(L1 * 4),
    B = new Float64Array(L1 * 4),
    P = new Float64Array(L1 * L1 * 4);
  const y = new Float64Array(D * 4);
  for (let i = 0; i < n; i++) {
    let X = xyz[3 * i]!,
      Y = xyz[3 * i + 1]!,
      Z = xyz[3 * i + 2]!;
    let inv = 1;
    if (normalize) {
      const r = Math.hypot(X, Y, Z);
      if (r === 0) {
        out.fill(0, i * D, (i + 1) * D);
        out[i * D] = scale[0]!;
        if (grad) grad.fill(0, i * D * 3, (i + 1) * D * 3);
        continue;
      }
      inv = 1 / r;
      X *= inv;
      Y *= inv;
      Z *= inv;
    }
    // x′ = Z, y′ = X, z′ = Y (e3nn's axes); r² = X² + Y² + Z²
    const r2 = X * X + Y * Y + Z * Z;
    A.fill(0);
    B.fill(0);
    A[0] = 1;
    for (let m = 0; m < lmax; m++) {
      const a = 4 * m,
        b = a + 4;
      const av = A[a]!,
        bv = B[a]!;
      A[b] = Z * av - X * bv;
      B[b] = Z * bv + X * av;
      // ∂X: x′ = Z has ∂X 0, y′ = X has ∂X 1
      A[b + 1] = Z * A[a + 1]! - X * B[a + 1]! - bv;
      B[b + 1] = Z * B[a + 1]! + X * A[a + 1]! + av;
      A[b + 2] = Z * A[a + 2]! - X * B[a + 2]!;
      B[b + 2] = Z * B[a + 2]! + X * A[a + 2]!;
      A[b + 3] = Z * A[a + 3]! - X * B[a + 3]! + av;
      B[b + 3] = Z * B[a + 3]! + X * A[a + 3]! + bv;
    }
    P.fill(0);
    const pi = (l: number, m: number): number => 4 * (m * L1 + l);
    let dfact = 1; // (2m−1)!!
    for (let m = 0; m <= lmax; m++) {
      if (m > 0) dfact *= 2 * m - 1;
      P[pi(m, m)] = dfact;
      if (m + 1 <= lmax) {
        const o = pi(m + 1, m),
          c = (2 * m + 1) * dfact;
        P[o] = c * Y;
        P[o + 2] = c; // ∂Y of z′ = Y
      }
      for (let l = m + 2; l <= lmax; l++) {
        const o = pi(l, m),
          p1 = pi(l - 1, m),
          p2 = pi(l - 2, m);
        const a = (2 * l - 1) / (l - m),
          b = (l + m - 1) / (l - m);
        P[o] = a * Y * P[p1]! - b * r2 * P[p2]!;
        P[o + 1] = a * Y * P[p1 + 1]! - b * (r2 * P[p2 + 1]! + 2 * X * P[p2]!);
        P[o + 2] = a * (Y * P[p1 + 2]! + P[p1]!) - b * (r2 * P[p2 + 2]! + 2 * Y * P[p2]!);
        P[o + 3] = a * Y * P[p1 + 3]! - b * (r2 * P[p2 + 3]! + 2 * Z * P[p2]!);
      }
    }
    for (let l = 0; l <= lmax; l++)
      for (let m = -l; m <= l; m++) {
        const k = l * l + l + m,
          s = scale[k]!,
          p = pi(l, Math.abs(m));
        const t = m > 0 ? A : B,
          tk = 4 * Math.abs(m);
        if (m === 0) {
          for (let c = 0; c < 4; c++) y[4 * k + c] = s * P[p + c]!;
        } else {
          const pv = P[p]!,
            tv = t[tk]!;
          y[4 * k] = s * pv * tv;
          for (let c = 1; c < 4; c++) y[4 * k + c] = s * (P[p + c]! * tv + pv * t[tk + c]!);
        }
      }
    for (let k = 0; k < D; k++) out[i * D + k] = y[4 * k]!;
    if (grad) {
      for (let k = 0; k < D; k++) {
        let gx = y[4 * k + 1]!,
          gy = y[4 * k + 2]!,
          gz = y[4 * k + 3]!;
        if (normalize) {
          // d/dx of Y(x/|x|) = (I − uuᵀ)∇Y(u)/|x|
          const dot = gx * X + gy * Y + gz * Z;
          gx = (gx - dot * X) * inv;
          gy = (gy - dot * Y) * inv;
          gz = (gz - dot * Z) * inv;
        }
        const o = (i * D + k) * 3;
        grad[o] = gx;
        grad[o + 1] = gy;
        grad[o + 2] = gz;
      }
    }
  }
  return out;
}
