import { RangeArgError } from '../../errors.js';
import { mat } from '../../linalg/matrix.js';
import type { Mat } from '../../linalg/matrix.js';
import { sparseFromDense } from '../../linalg/sparse.js';
import { ropeFrequencies } from '../group/rotary.js';
import { irrepLie, irrepMatrix } from '../irreps/wigner.js';
import { solveEnd } from '../solve/solver.js';

/**
 * The rotary representation, derived. Let the translations of a sequence act on the heads'
 * queries and keys too, q_m ↦ ρ(s)q_m, and ask the score to factor through the features:
 * S(m, n) = ⟨ρ(m)q, B ρ(n)k⟩ with S(m+s, n+s) = S(m, n). That needs ρ(s)ᵀBρ(s) = B for every s:
 * with ρ orthogonal, B ∈ Hom_ℤ(ρ, ρ), the end the solver computes; and ρ(m)ᵀρ(n) = ρ(n − m)
 * then makes S depend on n − m only. The real orthogonal representations of the shift group
 * ℤ ⊂ ℝ are sums of the SO(2) irreducibles ψ₁ at frequencies ω (src/symmetry/irreps): ρ(m) =
 * ⊕ᵢ ψ₁(m·ωᵢ), rotations of feature pairs (2i, 2i+1), with RoPE's ωᵢ = 10000^(−2i/dh). For
 * distinct frequencies the end is span{Iᵢ, Jᵢ} (a scaling and a quarter turn per pair):
 * dimension dh. Every such B = ⊕(aᵢI + bᵢJ) commutes with ρ and is absorbed by the query
 * projection (W_q ↦ BᵀW_q), so B = I loses nothing — and that score is RoPE's.
 */
export interface DerivedRotary {
  /** The head width dh (even). */
  readonly dh: number;
  /** ωᵢ, one per feature pair. */
  readonly frequencies: Float64Array;
  /** An orthonormal basis of Hom_ℤ(ρ, ρ), rows of dh² values (row-major dh×dh matrices). */
  readonly forms: Float64Array;
  /** dim Hom_ℤ(ρ, ρ). */
  readonly dimension: number;
  /** The generator residual of the solve, max over the basis. */
  readonly residual: number;
}

/** The largest head width the rotary derivation takes (the end has dh² unknowns, solved pair block by pair block). */
export const MAX_ROTARY_WIDTH = 1024;

/** ρ(m) = ⊕ᵢ ψ₁(m·ωᵢ) as a dh×dh matrix, each block the SO(2) irrep ψ₁ at the rotation by m·ωᵢ. */
export function rotaryMatrix(frequencies: Float64Array, m: number): Mat {
  const dh = 2 * frequencies.length;
  const R = mat(dh, dh);
  frequencies.forEach((w, i) => {
    const th = m * w;
    const block = irrepMatrix('SO(2)', { l: 1, p: 0 }, mat(2, 2, [Math.cos(th), -Math.sin(th), Math.sin(th), Math.cos(th)]));
    for (let a = 0; a < 2; a++) for (let b = 0; b < 2; b++) R.data[(2 * i + a) * dh + 2 * i + b] = block.data[a * 2 + b]!;
  });
  return R;
}

/**
 * Derives ρ and its invariant bilinear forms for a head of width dh (RoPE's frequencies by
 * default). The end Hom_ℤ(ρ, ρ) is solved block by block: between the pairs i and j the
 * generator is dρ = (ωᵢψ₁′, ωⱼψ₁′) — the Lie algebra image of SO(2)'s ψ₁ scaled by the
 * frequencies — and the end solver returns span{I, J} when ωᵢ = ωⱼ and nothing otherwise.
 */
export function deriveRotary(dh: number, frequencies: Float64Array = ropeFrequencies(dh)): DerivedRotary {
  if (!(Number.isInteger(dh) && dh >= 2 && dh % 2 === 0 && dh <= MAX_ROTARY_WIDTH))
    throw new RangeArgError(`rotary: the head width must be an even integer in 2 … ${MAX_ROTARY_WIDTH}, got ${dh}`);
  if (frequencies.length !== dh / 2) throw new RangeArgError(`rotary: ${frequencies.length} frequencies for ${dh / 2} feature pairs`);
  const J = mat(2, 2, [0, -1, 1, 0]); // the generator of so(2)
  const lie = (w: number): Mat => {
    const L = irrepLie('SO(2)', { l: 1, p: 0 }, J);
    return { ...L, data: L.data.map((v) => w * v) };
  };
  const half = dh / 2;
  const rows: Float64Array[] = [];
  let residual = 0;
  for (let i = 0; i < half; i++)
    for (let j = 0; j < half; j++) {
      const end = solveEnd([{ out: sparseFromDense(lie(frequencies[i]!), 0), in: sparseFromDense(lie(frequencies[j]!), 0) }], 2, 2);
      residual = Math.max(residual, end.residual);
      for (let b = 0; b < end.dim; b++) {
        const B = new Float64Array(dh * dh);
        for (let a = 0; a < 2; a++) for (let c = 0; c < 2; c++) B[(2 * i + a) * dh + 2 * j + c] = end.rows[b * 4 + a * 2 + c]!;
        rows.push(B);
      }
    }
  const forms = new Float64Array(rows.length * dh * dh);
  rows.forEach((r, b) => forms.set(r, b * dh * dh));
  return { dh, frequencies, forms, dimension: rows.length, residual };
}

/** The score ⟨ρ(m)q, B ρ(n)k⟩ of one query and one key at positions m and n (B = I when omitted): RoPE's score. */
export function rotaryScore(r: DerivedRotary, q: ArrayLike<number>, m: number, k: ArrayLike<number>, n: number, B?: ArrayLike<number>): number {
  const dh = r.dh;
  const Rm = rotaryMatrix(r.frequencies, m).data,
    Rn = rotaryMatrix(r.frequencies, n).data;
  const rq = new Float64Array(dh),
    rk = new Float64Array(dh);
  for (let a = 0; a < dh; a++)
    for (let b = 0; b < dh; b++) {
      rq[a]! += Rm[a * dh + b]! * q[b]!;
      rk[a]! += Rn[a * dh + b]! * k[b]!;
    }
  let s = 0;
  for (let a = 0; a < dh; a++) {
    let bk = 0;
    for (let b = 0; b < dh; b++) bk += (B ? B[a * dh + b]! : a === b ? 1 : 0) * rk[b]!;
    s += rq[a]! * bk;
  }
  return s;
}
