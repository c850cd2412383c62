import { RangeArgError } from '../../errors.js';
import { mat } from '../../linalg/matrix.js';
import type { Mat } from '../../linalg/matrix.js';
import type { Irrep, IrrepGroup, Irreps } from './irrep.js';
import { sphereQuadrature } from './quadrature.js';
import { MAX_SH_L, sphericalHarmonics } from './spherical-harmonics.js';

/** Y_ℓ (integral normalisation, (2ℓ+1) values per point) and its gradient at the nodes of a rule exact to degree 2ℓ. */
interface ShOnGrid {
  readonly n: number;
  readonly points: Mat;
  readonly weights: Float64Array;
  readonly y: Float64Array;
  readonly grad: Float64Array;
}

const grids = new Map<number, ShOnGrid>();

function shOnGrid(l: number): ShOnGrid {
  const hit = grids.get(l);
  if (hit) return hit;
  const { points, weights } = sphereQuadrature(2 * l + 2);
  const n = points.rows,
    D = (l + 1) * (l + 1),
    d = 2 * l + 1;
  const all = new Float64Array(n * D),
    allGrad = new Float64Array(n * D * 3);
  sphericalHarmonics(l, points.data, n, { out: all, grad: allGrad, normalize: false });
  const y = new Float64Array(n * d),
    grad = new Float64Array(n * d * 3);
  for (let q = 0; q < n; q++)
    for (let m = 0; m < d; m++) {
      y[q * d + m] = all[q * D + l * l + m]!;
      for (let c = 0; c < 3; c++) grad[(q * d + m) * 3 + c] = allGrad[(q * D + l * l + m) * 3 + c]!;
    }
  const g = { n, points, weights, y, grad };
  grids.set(l, g);
  return g;
}

function checkL(l: number): void {
  if (!(Number.isInteger(l) && l >= 0 && l <= MAX_SH_L)) throw new RangeArgError(`an SO(3) irrep needs an integer ℓ in 0 … ${MAX_SH_L}, got ${l}`);
}

/**
 * The Wigner D matrix D^ℓ(R) of a rotation R (3×3) in the real basis of the spherical
 * harmonics: the matrix with Y_ℓ(Rx) = D^ℓ(R) Y_ℓ(x). Since the Y_ℓm are orthonormal,
 * D_mn(R) = ∫_{S²} Y_ℓm(Rx) Y_ℓn(x) dΩ, and the integrand is a polynomial of degree 2ℓ, so a
 * product rule exact to that degree gives it to rounding. D^0 = 1 and D^1(R) = R.
 */
export function wignerD(l: number, R: Mat): Mat {
  checkL(l);
  if (R.rows !== 3 || R.cols !== 3) throw new RangeArgError(`wignerD needs a 3×3 rotation, got ${R.rows}×${R.cols}`);
  const g = shOnGrid(l),
    d = 2 * l + 1;
  const rx = new Float64Array(g.n * 3);
  const P = g.points.data,
    r = R.data;
  for (let q = 0; q < g.n; q++)
    for (let i = 0; i < 3; i++) rx[3 * q + i] = r[3 * i]! * P[3 * q]! + r[3 * i + 1]! * P[3 * q + 1]! + r[3 * i + 2]! * P[3 * q + 2]!;
  const yr = sphericalHarmonics(l, rx, g.n, { normalize: false });
  const D = mat(d, d),
    off = l * l,
    Dall = (l + 1) * (l + 1);
  for (let q = 0; q < g.n; q++) {
    const w = g.weights[q]!;
    for (let m = 0; m < d; m++) {
      const a = w * yr[q * Dall + off + m]!;
      if (a === 0) continue;
      for (let k = 0; k < d; k++) D.data[m * d + k]! += a * g.y[q * d + k]!;
    }
  }
  return D;
}

/**
 * The Lie-algebra image dρ_ℓ(A) of A ∈ so(3) (a 3×3 antisymmetric matrix) in the same basis:
 * d/dt Y_ℓ(e^{tA}x)|₀ = ∇Y_ℓ(x)·Ax = dρ_ℓ(A) Y_ℓ(x), so dρ_ℓ(A)_mn = ∫ (∇Y_ℓm·Ax) Y_ℓn dΩ
 * (degree 2ℓ again, exact by quadrature). D^ℓ(e^{A}) = e^{dρ_ℓ(A)}.
 */
export function so3IrrepLie(l: number, A: Mat): Mat {
  checkL(l);
  const g = shOnGrid(l),
    d = 2 * l + 1;
  const J = mat(d, d),
    P = g.points.data,
    a = A.data;
  for (let q = 0; q < g.n; q++) {
    const x = P[3 * q]!,
      y = P[3 * q + 1]!,
      z = P[3 * q + 2]!;
    const ax = [a[0]! * x + a[1]! * y + a[2]! * z, a[3]! * x + a[4]! * y + a[5]! * z, a[6]! * x + a[7]! * y + a[8]! * z];
    const w = g.weights[q]!;
    for (let m = 0; m < d; m++) {
      const o = (q * d + m) * 3;
      const v = w * (g.grad[o]! * ax[0]! + g.grad[o + 1]! * ax[1]! + g.grad[o + 2]! * ax[2]!);
      if (v === 0) continue;
      for (let k = 0; k < d; k++) J.data[m * d + k]! += v * g.y[q * d + k]!;
    }
  }
  return J;
}

const det3 = (R: Mat): number => {
  const r = R.data;
  return r[0]! * (r[4]! * r[8]! - r[5]! * r[7]!) - r[1]! * (r[3]! * r[8]! - r[5]! * r[6]!) + r[2]! * (r[3]! * r[7]! - r[4]! * r[6]!);
};

/** The rotation angle of an SO(2) element [[c, −s], [s, c]]. */
const so2Angle = (R: Mat): number => Math.atan2(R.data[2]!, R.data[0]!);

/**
 * The matrix of an irrep at a group element g given by its standard representation V:
 * SO(2) (g 2×2): ψ_0 = 1, ψ_k = rotation by kθ; SO(3) (g 3×3, det 1): D^ℓ(g); O(3) (g 3×3):
 * D^ℓ(g) for det g = 1, and p·D^ℓ(−g) for det g = −1 (g = (−I)(−g), and −I acts by p).
 */
export function irrepMatrix(group: IrrepGroup, ir: Irrep, g: Mat): Mat {
  if (group === 'SO(2)') {
    if (g.rows !== 2) throw new RangeArgError(`an SO(2) element is 2×2, got ${g.rows}×${g.cols}`);
    if (ir.l === 0) return mat(1, 1, [1]);
    const t = ir.l * so2Angle(g);
    return mat(2, 2, [Math.cos(t), -Math.sin(t), Math.sin(t), Math.cos(t)]);
  }
  const det = det3(g);
  if (det > 0) return wignerD(ir.l, g);
  if (group === 'SO(3)') throw new RangeArgError('an SO(3) element needs det 1; use O(3) irreps (with parity) for reflections');
  const D = wignerD(ir.l, { rows: 3, cols: 3, data: g.data.map((v) => -v) });
  return ir.p === -1 ? { ...D, data: D.data.map((v) => -v) } : D;
}

/** The Lie-algebra image of A (in the group's Lie algebra on V) in an irrep: SO(2) k·A on ψ_k (0 on ψ_0), SO(3)/O(3) dρ_ℓ(A). */
export function irrepLie(group: IrrepGroup, ir: Irrep, A: Mat): Mat {
  if (group === 'SO(2)') return ir.l === 0 ? mat(1, 1) : { rows: 2, cols: 2, data: A.data.map((v) => ir.l * v) };
  return so3IrrepLie(ir.l, A);
}

/** The block-diagonal matrix of g on a direct sum of irreps (e3nn's `Irreps.D_from_matrix`), dim × dim. */
export function irrepsMatrix(irreps: Irreps, g: Mat): Mat {
  const n = irreps.dim,
    M = mat(n, n);
  irreps.terms.forEach((t, i) => {
    const D = irrepMatrix(irreps.group, t.ir, g),
      d = D.rows;
    for (let u = 0; u < t.mul; u++) {
      const o = irreps.offsets[i]! + u * d;
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) M.data[(o + a) * n + o + b] = D.data[a * d + b]!;
    }
  });
  return M;
}
