import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../../src/random/rng.js';
import { expm, matmul, transpose, mat, eye } from '../../src/linalg/matrix.js';
import type { Mat } from '../../src/linalg/matrix.js';
import { O as O3group, SO, soGenerators } from '../../src/symmetry/group/group.js';
import { atomLie, atoms, repSize } from '../../src/symmetry/group/rep.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { solveEnd } from '../../src/symmetry/solve/solver.js';
import { sparseFromDense } from '../../src/linalg/sparse.js';
import { nullspace } from '../../src/linalg/nullspace.js';
import { ExpressionError } from '../../src/symmetry/group/errors.js';
import { parseIrreps } from '../../src/symmetry/irreps/irrep.js';
import type { Irrep, IrrepGroup } from '../../src/symmetry/irreps/irrep.js';
import { gaussLegendre, sphereQuadrature } from '../../src/symmetry/irreps/quadrature.js';
import { shDim, sphericalHarmonics } from '../../src/symmetry/irreps/spherical-harmonics.js';
import { irrepLie, irrepMatrix, so3IrrepLie, wignerD } from '../../src/symmetry/irreps/wigner.js';
import { clebschGordan, couples } from '../../src/symmetry/irreps/clebsch-gordan.js';
import { decompose, decomposeSymmetric, decompositionString } from '../../src/symmetry/irreps/decompose.js';
import { parseIndexSymmetry } from '../../src/symmetry/irreps/index-symmetry.js';
import { clebschGordanRealFromRacah } from './racah.js';

const maxAbsDiff = (a: ArrayLike<number>, b: ArrayLike<number>): number => {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
};
const rotation = (rng: Rng): Mat => SO(3).sample(rng);
const apply = (R: Mat, v: readonly number[]): number[] =>
  [0, 1, 2].map((i) => R.data[3 * i]! * v[0]! + R.data[3 * i + 1]! * v[1]! + R.data[3 * i + 2]! * v[2]!);

describe('irreps in e3nn notation', () => {
  it('parses and prints 2x0e+1x1o, 0e + 1o + 2e, 3x1 (SO(3)) and names the column of an error', () => {
    const a = parseIrreps('2x0e+1x1o');
    expect([a.group, a.dim, String(a), a.lmax, a.count]).toEqual(['O(3)', 5, '2x0e+1x1o', 1, 3]);
    expect(String(parseIrreps('0e + 1o + 2e'))).toBe('1x0e+1x1o+1x2e');
    expect(parseIrreps('3x1').group).toBe('SO(3)');
    expect(parseIrreps('3x1', 'SO(2)').dim).toBe(6);
    expect(String(parseIrreps('1x1o+2x0e+1x1o').simplify())).toBe('2x0e+2x1o');
    expect(() => parseIrreps('1x1o+2')).toThrow(ExpressionError);
    expect(() => parseIrreps('1x1o+2')).toThrow(/column 6/);
    expect(() => parseIrreps('1x1q')).toThrow(/'\+' or the end/);
    expect(() => parseIrreps('1e', 'SO(3)')).toThrow(/no parity/);
  });
});

describe('quadrature', () => {
  it('Gauss–Legendre with n nodes integrates x^k exactly for k ≤ 2n − 1', () => {
    for (const n of [1, 2, 5, 9]) {
      const { nodes, weights } = gaussLegendre(n);
      for (let k = 0; k <= 2 * n - 1; k++) {
        const q = nodes.reduce((s, x, i) => s + weights[i]! * x ** k, 0);
        expect(q).toBeCloseTo(k % 2 ? 0 : 2 / (k + 1), 13);
      }
    }
  });
  it('the sphere rule has area 4π and integrates monomials of degree ≤ its degree exactly (∫x²y² = 4π/15)', () => {
    const { points, weights } = sphereQuadrature(6);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(4 * Math.PI, 12);
    let s = 0,
      t = 0;
    for (let q = 0; q < points.rows; q++) {
      const [x, y, z] = [points.data[3 * q]!, points.data[3 * q + 1]!, points.data[3 * q + 2]!];
      s += weights[q]! * x * x * y * y;
      t += weights[q]! * x * y * z * z * z;
    }
    expect(s).toBeCloseTo((4 * Math.PI) / 15, 12);
    expect(t).toBeCloseTo(0, 13);
  });
});

describe('real spherical harmonics (e3nn basis)', () => {
  it('closed forms for ℓ ≤ 2 (component normalisation): Y_1 = √3(x, y, z), Y_2 = √15·(xz, xy, …) as e3nn', () => {
    const v = [0.36, -0.48, 0.8]; // a unit vector
    const [x, y, z] = v as [number, number, number];
    const Y = sphericalHarmonics(2, v, 1, { normalization: 'component' });
    const want = [
      1,
      Math.sqrt(3) * x,
      Math.sqrt(3) * y,
      Math.sqrt(3) * z,
      Math.sqrt(15) * x * z,
      Math.sqrt(15) * x * y,
      Math.sqrt(5) * (y * y - 0.5 * (x * x + z * z)),
      Math.sqrt(15) * y * z,
      0.5 * Math.sqrt(15) * (z * z - x * x),
    ];
    expect(maxAbsDiff(Y, want)).toBeLessThan(1e-14);
  });

  it('orthonormal on the sphere (integral normalisation), by a rotated product rule of higher degree', () => {
    const L = 6,
      D = shDim(L);
    const { points, weights } = sphereQuadrature(2 * L + 3);
    const R = rotation(new Rng(7));
    const pts = new Float64Array(points.rows * 3);
    for (let q = 0; q < points.rows; q++) pts.set(apply(R, [points.data[3 * q]!, points.data[3 * q + 1]!, points.data[3 * q + 2]!]), 3 * q);
    const Y = sphericalHarmonics(L, pts, points.rows);
    let worst = 0;
    for (let a = 0; a < D; a++)
      for (let b = 0; b < D; b++) {
        let s = 0;
        for (let q = 0; q < points.rows; q++) s += weights[q]! * Y[q * D + a]! * Y[q * D + b]!;
        worst = Math.max(worst, Math.abs(s - (a === b ? 1 : 0)));
      }
    expect(worst).toBeLessThan(1e-12);
  });

  it("the three normalisations: ‖Y_ℓ‖² = 2ℓ+1 ('component'), ‖Y_ℓ‖ = 1 ('norm'); unnormalised inputs give |x|^ℓ Y_ℓ", () => {
    const v = [1.5, -0.3, 2.2],
      r = Math.hypot(...v);
    const comp = sphericalHarmonics(3, v, 1, { normalization: 'component' });
    const nrm = sphericalHarmonics(3, v, 1, { normalization: 'norm' });
    const solid = sphericalHarmonics(3, v, 1, { normalization: 'component', normalize: false });
    for (let l = 0; l <= 3; l++) {
      const block = (a: ArrayLike<number>): number[] => Array.from({ length: 2 * l + 1 }, (_, m) => a[l * l + m]!);
      expect(block(comp).reduce((s, u) => s + u * u, 0)).toBeCloseTo(2 * l + 1, 12);
      expect(block(nrm).reduce((s, u) => s + u * u, 0)).toBeCloseTo(1, 12);
      block(solid).forEach((u, m) => expect(u).toBeCloseTo(r ** l * comp[l * l + m]!, 11));
    }
  });

  it('derivatives match finite differences (with and without normalising the input)', () => {
    const L = 4,
      D = shDim(L),
      v = [0.7, -1.1, 0.4];
    for (const normalize of [true, false]) {
      const grad = new Float64Array(D * 3);
      sphericalHarmonics(L, v, 1, { grad, normalize });
      for (let c = 0; c < 3; c++) {
        const h = 1e-6,
          vp = [...v],
          vm = [...v];
        vp[c]! += h;
        vm[c]! -= h;
        const yp = sphericalHarmonics(L, vp, 1, { normalize }),
          ym = sphericalHarmonics(L, vm, 1, { normalize });
        for (let k = 0; k < D; k++) expect(grad[k * 3 + c]).toBeCloseTo((yp[k]! - ym[k]!) / (2 * h), 7);
      }
    }
  });
});

describe('Wigner D matrices', () => {
  it('Y_ℓ(Rx) = D^ℓ(R) Y_ℓ(x) for random R and x (ℓ ≤ 6); D^1(R) = R; D^0 = 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e6 }), (seed) => {
        const rng = new Rng(seed);
        const R = rotation(rng);
        const x = [rng.normal(), rng.normal(), rng.normal()];
        const L = 6,
          D = shDim(L);
        const Yx = sphericalHarmonics(L, x, 1),
          YRx = sphericalHarmonics(L, apply(R, x), 1);
        for (let l = 0; l <= L; l++) {
          const W = wignerD(l, R),
            d = 2 * l + 1;
          for (let m = 0; m < d; m++) {
            let s = 0;
            for (let k = 0; k < d; k++) s += W.data[m * d + k]! * Yx[l * l + k]!;
            expect(Math.abs(s - YRx[l * l + m]!)).toBeLessThan(1e-12);
          }
        }
        expect(maxAbsDiff(wignerD(1, R).data, R.data)).toBeLessThan(1e-14);
        expect(wignerD(0, R).data[0]).toBeCloseTo(1, 14);
        return D > 0;
      }),
      { numRuns: 25 },
    );
  });

  it('a homomorphism into the orthogonal matrices: D(R₁R₂) = D(R₁)D(R₂), D(R)ᵀD(R) = I', () => {
    const rng = new Rng(11);
    for (const l of [2, 3, 5]) {
      const R1 = rotation(rng),
        R2 = rotation(rng);
      const D12 = wignerD(l, matmul(R1, R2)),
        D1 = wignerD(l, R1),
        D2 = wignerD(l, R2);
      expect(maxAbsDiff(D12.data, matmul(D1, D2).data)).toBeLessThan(1e-13);
      expect(maxAbsDiff(matmul(transpose(D1), D1).data, eye(2 * l + 1).data)).toBeLessThan(1e-13);
    }
  });

  it('the Lie-algebra images: D^ℓ(e^{tA}) = e^{t·dρ_ℓ(A)}; [dρ(A), dρ(B)] = dρ([A, B])', () => {
    const [A, B] = soGenerators(3) as [Mat, Mat];
    for (const l of [1, 2, 4]) {
      const J = so3IrrepLie(l, A);
      expect(maxAbsDiff(wignerD(l, expm({ ...A, data: A.data.map((v) => 0.7 * v) })).data, expm({ ...J, data: J.data.map((v) => 0.7 * v) }).data)).toBeLessThan(
        1e-12,
      );
      const br = (X: Mat, Y: Mat): Mat => ({ ...X, data: matmul(X, Y).data.map((v, i) => v - matmul(Y, X).data[i]!) });
      expect(maxAbsDiff(br(so3IrrepLie(l, A), so3IrrepLie(l, B)).data, so3IrrepLie(l, br(A, B)).data)).toBeLessThan(1e-12);
    }
  });

  it('O(3): 1o is V itself (reflections too), 1e is det·V, 0o is det; SO(2): ψ_k rotates by kθ', () => {
    const rng = new Rng(2);
    const g = rotation(rng);
    const P = { ...g, data: g.data.map((v, i) => (i < 3 ? -v : v)) }; // diag(−1, 1, 1)·R: det −1
    const r = P.data;
    const det = r[0]! * (r[4]! * r[8]! - r[5]! * r[7]!) - r[1]! * (r[3]! * r[8]! - r[5]! * r[6]!) + r[2]! * (r[3]! * r[7]! - r[4]! * r[6]!);
    expect(maxAbsDiff(irrepMatrix('O(3)', { l: 1, p: -1 }, P).data, P.data)).toBeLessThan(1e-13);
    expect(
      maxAbsDiff(
        irrepMatrix('O(3)', { l: 1, p: 1 }, P).data,
        P.data.map((v) => det * v),
      ),
    ).toBeLessThan(1e-13);
    expect(det).toBeCloseTo(-1, 13);
    expect(irrepMatrix('O(3)', { l: 0, p: -1 }, P).data[0]).toBeCloseTo(-1, 13);
    // and on a random element of O(3), the parity is det: D^{0o}(g) = det g
    const h = O3group(3).sample(rng),
      hd = h.data;
    const deth = hd[0]! * (hd[4]! * hd[8]! - hd[5]! * hd[7]!) - hd[1]! * (hd[3]! * hd[8]! - hd[5]! * hd[6]!) + hd[2]! * (hd[3]! * hd[7]! - hd[4]! * hd[6]!);
    expect(irrepMatrix('O(3)', { l: 0, p: -1 }, h).data[0]).toBeCloseTo(deth, 13);
    expect(() => irrepMatrix('SO(3)', { l: 1, p: 0 }, P)).toThrow(/det 1/);
    const t = 0.4,
      R2 = mat(2, 2, [Math.cos(t), -Math.sin(t), Math.sin(t), Math.cos(t)]);
    expect(maxAbsDiff(irrepMatrix('SO(2)', { l: 3, p: 0 }, R2).data, [Math.cos(3 * t), -Math.sin(3 * t), Math.sin(3 * t), Math.cos(3 * t)])).toBeLessThan(
      1e-14,
    );
    expect(Array.from(irrepLie('SO(2)', { l: 2, p: 0 }, soGenerators(2)[0]!).data, (v) => v + 0)).toEqual([0, -2, 2, 0]);
  });
});

describe('Clebsch–Gordan coefficients from the end solver', () => {
  const triples: [number, number, number][] = [
    [1, 1, 0],
    [1, 1, 1],
    [1, 1, 2],
    [2, 1, 1],
    [2, 2, 2],
    [2, 1, 3],
    [3, 2, 1],
    [2, 2, 4],
    [3, 3, 3],
    [0, 2, 2],
  ];

  it('equal (up to one sign) to the Racah formula carried into the real basis, for ℓ ≤ 3', () => {
    for (const [a, b, c] of triples) {
      const C = clebschGordan(a, b, c),
        want = clebschGordanRealFromRacah(a, b, c);
      const sign = Math.sign(C.reduce((s, v, i) => s + v * want[i]!, 0));
      expect(
        maxAbsDiff(
          C,
          want.map((v) => sign * v),
        ),
      ).toBeLessThan(1e-12);
      expect(C.reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 12);
    }
  });

  it('closed forms: 1⊗1→0 is δ_ij/√3, 1⊗1→1 is ε_ijk/√6, ℓ⊗0→ℓ is δ/√(2ℓ+1)', () => {
    const c0 = clebschGordan(1, 1, 0),
      c1 = clebschGordan(1, 1, 1),
      c2 = clebschGordan(2, 0, 2);
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++) {
        expect(c0[i * 3 + j]).toBeCloseTo(i === j ? 1 / Math.sqrt(3) : 0, 14);
        for (let k = 0; k < 3; k++) {
          const eps = ((i - j) * (j - k) * (k - i)) / 2;
          expect(Math.abs(c1[(i * 3 + j) * 3 + k]!)).toBeCloseTo(Math.abs(eps) / Math.sqrt(6), 14);
          expect(c1[(i * 3 + j) * 3 + k]! * Math.sqrt(6)).toBeCloseTo(eps * Math.sign(c1[(0 * 3 + 1) * 3 + 2]!), 13);
        }
      }
    for (let m = 0; m < 5; m++) for (let n = 0; n < 5; n++) expect(c2[m * 5 + n]).toBeCloseTo(m === n ? 1 / Math.sqrt(5) : 0, 14);
  });

  it('intertwines: Σ C[m₁m₂m₃] D¹D²(D³)ᵀ = C for random rotations (negative control: a perturbed C does not)', () => {
    const rng = new Rng(5);
    for (const [a, b, c] of triples) {
      const C = clebschGordan(a, b, c),
        R = rotation(rng);
      const D1 = wignerD(a, R),
        D2 = wignerD(b, R),
        D3 = wignerD(c, R);
      const d1 = 2 * a + 1,
        d2 = 2 * b + 1,
        d3 = 2 * c + 1;
      const rotated = (T: Float64Array): Float64Array => {
        const out = new Float64Array(T.length);
        for (let i = 0; i < d1; i++)
          for (let j = 0; j < d2; j++)
            for (let k = 0; k < d3; k++) {
              let s = 0;
              for (let p = 0; p < d1; p++)
                for (let q = 0; q < d2; q++)
                  for (let r = 0; r < d3; r++) s += T[(p * d2 + q) * d3 + r]! * D1.data[p * d1 + i]! * D2.data[q * d2 + j]! * D3.data[r * d3 + k]!;
              out[(i * d2 + j) * d3 + k] = s;
            }
        return out;
      };
      expect(maxAbsDiff(rotated(C), C)).toBeLessThan(1e-12);
      if (a + b + c > 0) {
        const bad = Float64Array.from(C, (v, i) => v + (i === 0 ? 0.1 : 0));
        expect(maxAbsDiff(rotated(bad), bad)).toBeGreaterThan(1e-3);
      }
    }
  });

  it('selection rules: the triangle rule, and for O(3) p₃ = p₁p₂', () => {
    expect(() => clebschGordan(1, 1, 3)).toThrow(/does not contain 3/);
    const e = (l: number, p: 1 | -1): Irrep => ({ l, p });
    expect(couples('O(3)', e(1, -1), e(1, -1), e(1, 1))).toBe(true);
    expect(couples('O(3)', e(1, -1), e(1, -1), e(1, -1))).toBe(false);
    expect(couples('SO(3)', { l: 1, p: 0 }, { l: 1, p: 0 }, { l: 1, p: 0 })).toBe(true);
  });
});

/** dim Hom_G(ℓ, ρ) from the end solver, with the Lie generators of the irrep and of the representation. */
function solverMultiplicity(group: IrrepGroup, ir: Irrep, repText: string): number {
  const G = group === 'SO(2)' ? SO(2) : SO(3);
  const rep = parseRep(repText),
    n = repSize(rep, G.d);
  const gens = G.lie.map((A) => {
    // the whole representation's dρ(A), assembled from its atoms
    const M = new Float64Array(n * n);
    for (const at of atoms(rep, G.d)) {
      const s = atomLie(at.factors, A, G.d);
      for (let r = 0; r < s.rows; r++) for (let x = s.rowPtr[r]!; x < s.rowPtr[r + 1]!; x++) M[at.pos[r]! * n + at.pos[s.colIdx[x]!]!] = s.vals[x]!;
    }
    return { out: sparseFromDense({ rows: n, cols: n, data: M }), in: sparseFromDense(irrepLie(group, ir, A)) };
  });
  const d = ir.l === 0 || group !== 'SO(2)' ? 1 : 2; // End_G(ψ_k) = C for k ≥ 1
  return solveEnd(gens, n, gens[0]!.in.rows).dim / d;
}

describe('decomposition into irreducibles', () => {
  it('T(2): SO(3) 1x0+1x1+1x2, O(3) 1x0e+1x1e+1x2e (V = 1o), SO(2) 2x0+1x2', () => {
    expect(decompositionString(decompose('SO(3)', parseRep('T(2)')))).toBe('1x0+1x1+1x2');
    expect(decompositionString(decompose('O(3)', parseRep('T(2)')))).toBe('1x0e+1x1e+1x2e');
    expect(decompositionString(decompose('O(3)', parseRep('V')))).toBe('1x1o');
    expect(decompositionString(decompose('SO(2)', parseRep('T(2)')))).toBe('2x0+1x2');
    const t3 = decompose('SO(3)', parseRep('T(3)'));
    expect([decompositionString(t3), t3.dim]).toEqual(['1x0+3x1+2x2+1x3', 27n]);
    expect(decompositionString(decompose('O(3)', parseRep('2V+T(0)+V*V')))).toBe('2x0e+1x1e+2x1o+1x2e');
    // exact beyond 2^53: T(40) has 3^40 coordinates
    expect(decompose('SO(3)', parseRep('T(40)')).dim).toBe(3n ** 40n);
  });

  it('agrees with the end solver: mult_ℓ = dim Hom_G(ℓ, ρ) (SO(3), SO(2); random expressions)', () => {
    const exprs = fc.constantFrom('V', 'T(2)', 'T(3)', 'V+T(2)', '2V*V', 'T(0)+T(1,1)', 'dual(V)*V*V');
    fc.assert(
      fc.property(exprs, fc.constantFrom<IrrepGroup>('SO(3)', 'SO(2)'), (text, group) => {
        const d = decompose(group, parseRep(text));
        for (let l = 0; l <= 3; l++) {
          const want = d.terms.find((t) => t.ir.l === l)?.mul ?? 0n;
          expect(solverMultiplicity(group, { l, p: 0 }, text)).toBe(Number(want));
        }
      }),
      { numRuns: 12 },
    );
  });

  it("index symmetries: 'ijkl=jikl=klij' is 21-dimensional, 2x0e+2x2e+1x4e; 'ij=-ji' is 1x1e (1x1 for SO(3)); the Levi-Civita 'ijk=-ikj=-jik' is 0o", () => {
    const elastic = decomposeSymmetric('O(3)', parseIndexSymmetry('ijkl=jikl=klij'));
    expect([decompositionString(elastic), elastic.dim]).toEqual(['2x0e+2x2e+1x4e', 21n]);
    expect(decompositionString(decomposeSymmetric('O(3)', parseIndexSymmetry('ij=-ji')))).toBe('1x1e');
    expect(decompositionString(decomposeSymmetric('SO(3)', parseIndexSymmetry('ij=-ji')))).toBe('1x1');
    expect(decompositionString(decomposeSymmetric('O(3)', parseIndexSymmetry('ij=ji')))).toBe('1x0e+1x2e');
    expect(decompositionString(decomposeSymmetric('O(3)', parseIndexSymmetry('ijk=-ikj=-jik')))).toBe('1x0o');
    expect(decompositionString(decomposeSymmetric('O(3)', parseIndexSymmetry('ijkl=jikl=ikjl=ijlk')))).toBe('1x0e+1x2e+1x4e');
    const none = decomposeSymmetric('O(3)', parseIndexSymmetry('ij=-ij'));
    expect([decompositionString(none), none.dim]).toEqual(['0', 0n]);
    expect(() => parseIndexSymmetry('ij=ik')).toThrow(/permutation of the letters 'ij'/);
    expect(() => parseIndexSymmetry('-ij=ji')).toThrow(/first term has no sign/);
  });

  it('the table of docs/equivariant.md, both groups', () => {
    const table: [string, string | undefined, string, string][] = [
      ['T(2)', undefined, '1x0+1x1+1x2', '1x0e+1x1e+1x2e'],
      ['T(3)', undefined, '1x0+3x1+2x2+1x3', '1x0o+3x1o+2x2o+1x3o'],
      ['T(2)', 'ij=ji', '1x0+1x2', '1x0e+1x2e'],
      ['T(2)', 'ij=-ji', '1x1', '1x1e'],
      ['T(3)', 'ijk=-ikj=-jik', '1x0', '1x0o'],
      ['T(4)', 'ijkl=jikl=klij', '2x0+2x2+1x4', '2x0e+2x2e+1x4e'],
      ['T(4)', 'ijkl=jikl=ikjl=ijlk', '1x0+1x2+1x4', '1x0e+1x2e+1x4e'],
      ['T(2)', 'ij=-ij', '0', '0'],
    ];
    for (const [rep, f, so3, o3] of table) {
      const d = (g: IrrepGroup): string => decompositionString(f ? decomposeSymmetric(g, parseIndexSymmetry(f)) : decompose(g, parseRep(rep)));
      expect([d('SO(3)'), d('O(3)')]).toEqual([so3, o3]);
    }
  });

  it('the dimension of each symmetric subspace equals that of the fixed space computed by a nullspace (random formulas)', () => {
    const formulas = fc.constantFrom('ij=ji', 'ij=-ji', 'ijk=jik', 'ijk=jki', 'ijk=-jik=-ikj', 'ijkl=jikl=klij', 'ijkl=-jikl=-ijlk=klij', 'ijk=kji');
    fc.assert(
      fc.property(formulas, (f) => {
        const sym = parseIndexSymmetry(f),
          k = sym.order,
          n = 3 ** k;
        // constraints T − s·π_σT = 0 for the generators (the subgroup elements, all of them)
        const cons = sym.group
          .filter((h) => h.perm.some((v, i) => v !== i) || h.sign < 0)
          .map((h) => {
            const M = mat(n, n);
            for (let x = 0; x < n; x++) {
              const digits = Array.from({ length: k }, (_, j) => Math.floor(x / 3 ** (k - 1 - j)) % 3);
              const y = h.perm.reduce((acc, p) => acc * 3 + digits[p]!, 0);
              M.data[x * n + x]! += 1;
              M.data[x * n + y]! -= h.sign;
            }
            return sparseFromDense(M);
          });
        const fixed = cons.length ? nullspace(cons).rows : n;
        expect(decomposeSymmetric('SO(3)', sym).dim).toBe(BigInt(fixed));
      }),
      { numRuns: 8 },
    );
  });
});
