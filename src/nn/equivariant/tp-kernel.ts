import { RangeArgError } from '../../errors.js';
import { backend } from '../../tensor/registry.js';
import type { Data } from '../../tensor/tensor.js';
import { clebschGordan, couples } from '../../symmetry/irreps/clebsch-gordan.js';
import { Irreps } from '../../symmetry/irreps/irrep.js';
import { pathKernels } from './tp-codegen.js';
import type { PathKernels } from './tp-codegen.js';

/** One path ℓ₁ ⊗ ℓ₂ → ℓ₃ of a tensor product: input terms i1, i2, output term o, its CG nonzeros and where its weights sit. */
export interface Path {
  readonly i1: number;
  readonly i2: number;
  readonly o: number;
  readonly mul1: number;
  readonly mul2: number;
  /** The CG contraction with this path's nonzero coefficients (× the path normalisation) compiled in. */
  readonly kernels: PathKernels;
  /** Column offset of this path in its output term's matrix Z (and row offset in W_o). */
  readonly k: number;
}

/** The output term o: its K = Σ mul₁·mul₂ over the paths into it, and where W_o (K × mul_o) starts in the weights. */
export interface OutputTerm {
  readonly K: number;
  readonly wOffset: number;
  readonly paths: readonly Path[];
}

/** What the forward keeps for the pullback. */
export interface TpSaved {
  readonly rows: number;
  readonly x1: Data;
  readonly x2: Data;
  /** Where row r of x1 (and of dx1) starts: r·ld1; of x2, r·ld2; of the output (and its gradient), r·ldOut. */
  readonly ld1: number;
  readonly ld2: number;
  readonly ldOut: number;
  /** Z_o per output term: (rows·d₃) × K_o, row r·d₃ + m₃, column k + u·mul₂ + v. */
  readonly Z: readonly Data[];
}

/** Scratch memory for a kernel: n zeros of the given precision (a Ctx's arena in a layer). */
export type Scratch = (n: number, float64: boolean) => Data;
const fresh: Scratch = (n, f64) => (f64 ? new Float64Array(n) : new Float32Array(n));

/**
 * The fully connected tensor product of irreps (e3nn's FullyConnectedTensorProduct; Thomas et al.
 * 2018, "Tensor field networks", eq. 3; Geiger & Smidt 2022 §4): for every path (u-th copy of
 * ℓ₁) ⊗ (v-th copy of ℓ₂) → ℓ₃ allowed by the selection rules, and every output copy w,
 *
 *   out[w, m₃] += α_o · Σ_{u,v} W_p[u, v, w] Σ_{m₁,m₂} C^{ℓ₁ℓ₂ℓ₃}[m₁, m₂, m₃] x₁[u, m₁] x₂[v, m₂],
 *
 * with C the real Clebsch–Gordan coefficients (norm 1) and α_o = √(2ℓ₃+1)/√(fan-in of o): e3nn's
 * "component" normalisation, so unit-variance inputs and weights give unit-variance outputs. Run on `rows` rows at once: the CG contraction fills Z_o (rows·d₃ × K_o) and one gemm
 * per output term multiplies it by W_o — the work of the layer is in the backend's gemm.
 */
export class TensorProductPlan {
  readonly terms: readonly OutputTerm[];
  /** Number of weights, Σ over paths of mul₁·mul₂·mul_o. */
  readonly nWeights: number;
  readonly paths: readonly Path[];
  constructor(
    readonly in1: Irreps,
    readonly in2: Irreps,
    readonly out: Irreps,
  ) {
    if (in1.group !== in2.group || in1.group !== out.group)
      throw new RangeArgError(`tensor product: irreps of one group expected, got ${in1.group}, ${in2.group} and ${out.group}`);
    if (out.group === 'SO(2)') throw new RangeArgError('tensor product: SO(3) or O(3) irreps expected (SO(2) products are not implemented)');
    const G = out.group;
    const terms: OutputTerm[] = [];
    const paths: Path[] = [];
    let w = 0;
    out.terms.forEach((to, o) => {
      const mine: Path[] = [];
      let K = 0;
      in1.terms.forEach((t1, i1) =>
        in2.terms.forEach((t2, i2) => {
          if (!couples(G, t1.ir, t2.ir, to.ir)) return;
          mine.push({ i1, i2, o, mul1: t1.mul, mul2: t2.mul, kernels: undefined as unknown as PathKernels, k: K });
          K += t1.mul * t2.mul;
        }),
      );
      const d3 = 2 * to.ir.l + 1;
      const alpha = K ? Math.sqrt(d3 / K) : 0;
      const withCg = mine.map((p) => {
        const l1 = in1.terms[p.i1]!.ir.l,
          l2 = in2.terms[p.i2]!.ir.l,
          d1 = 2 * l1 + 1,
          d2 = 2 * l2 + 1;
        const C = clebschGordan(l1, l2, to.ir.l);
        const cg: [number, number, number, number][] = [];
        for (let a = 0; a < d1; a++)
          for (let b = 0; b < d2; b++)
            for (let c = 0; c < d3; c++) {
              const v = C[(a * d2 + b) * d3 + c]!;
              if (v !== 0) cg.push([a, b, c, alpha * v]);
            }
        return { ...p, kernels: pathKernels(d1, d2, d3, cg) };
      });
      terms.push({ K, wOffset: w, paths: withCg });
      paths.push(...withCg);
      w += K * to.mul;
    });
    this.terms = terms;
    this.paths = paths;
    this.nWeights = w;
  }

  /**
   * out (rows × out.dim) = TP(x1, x2; W) (+ out when accumulate). x1, x2 are rows of in1.dim and
   * in2.dim values, row r at r·ld1 and r·ld2 (by default packed; the two halves of one
   * [x1 | x2] row-major array are read in place with ld1 = ld2 = in1.dim + in2.dim); row r of
   * out at r·ldOut.
   */
  forward(
    rows: number,
    x1: Data,
    x2: Data,
    W: Data,
    out: Data,
    accumulate = false,
    mem: Scratch = fresh,
    ld1 = this.in1.dim,
    ld2 = this.in2.dim,
    ldOut = this.out.dim,
  ): TpSaved {
    const f64 = out instanceof Float64Array;
    const be = backend();
    const { in1, in2 } = this;
    const n1 = ld1,
      n2 = ld2,
      no = ldOut;
    if (!accumulate) {
      if (no === this.out.dim) out.fill(0, 0, rows * no);
      else for (let r = 0; r < rows; r++) out.fill(0, r * no, r * no + this.out.dim);
    }
    const Z: Data[] = [];
    this.terms.forEach((t, o) => {
      const to = this.out.terms[o]!,
        d3 = 2 * to.ir.l + 1,
        mo = to.mul,
        offO = this.out.offsets[o]!;
      if (!t.K) {
        Z.push(mem(0, f64));
        return;
      }
      const z = mem(rows * d3 * t.K, f64);
      for (const p of t.paths) p.kernels.forward(x1, x2, z, rows, n1, n2, in1.offsets[p.i1]!, in2.offsets[p.i2]!, t.K, p.k, p.mul1, p.mul2);
      Z.push(z);
      // Y (rows·d3 × mo) = Z W_o, then into e3nn's layout out[r, offO + w·d3 + m3]
      const y = mem(rows * d3 * mo, f64);
      be.gemm(false, false, rows * d3, mo, t.K, z, W.subarray(t.wOffset, t.wOffset + t.K * mo), y, false);
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < d3; c++) {
          const yo = (r * d3 + c) * mo,
            oo = r * no + offO + c;
          for (let w = 0; w < mo; w++) out[oo + w * d3]! += y[yo + w]!;
        }
    });
    return { rows, x1, x2, ld1, ld2, ldOut, Z };
  }

  /**
   * The pullback: dW += Zᵀ·dY per output term; dZ = dY·W_oᵀ, then through the CG
   * contraction into dx1 and dx2 (each added to, when given; laid out as the forward's x1, x2).
   */
  backward(s: TpSaved, W: Data, dOut: Data, dW: Data | null, dx1: Data | null, dx2: Data | null, mem: Scratch = fresh): void {
    const f64 = dOut instanceof Float64Array;
    const be = backend();
    const { in1, in2 } = this;
    const { rows, x1, x2 } = s;
    const n1 = s.ld1,
      n2 = s.ld2,
      no = s.ldOut;
    this.terms.forEach((t, o) => {
      if (!t.K) return;
      const to = this.out.terms[o]!,
        d3 = 2 * to.ir.l + 1,
        mo = to.mul,
        offO = this.out.offsets[o]!;
      const dy = mem(rows * d3 * mo, f64);
      for (let r = 0; r < rows; r++)
        for (let c = 0; c < d3; c++) {
          const yo = (r * d3 + c) * mo,
            oo = r * no + offO + c;
          for (let w = 0; w < mo; w++) dy[yo + w] = dOut[oo + w * d3]!;
        }
      const Wo = W.subarray(t.wOffset, t.wOffset + t.K * mo);
      if (dW) be.gemm(true, false, t.K, mo, rows * d3, s.Z[o]!, dy, dW.subarray(t.wOffset, t.wOffset + t.K * mo), true);
      if (!dx1 && !dx2) return;
      const dz = mem(rows * d3 * t.K, f64);
      be.gemm(false, true, rows * d3, t.K, mo, dy, Wo, dz, false);
      for (const p of t.paths) {
        const off1 = in1.offsets[p.i1]!,
          off2 = in2.offsets[p.i2]!;
        if (dx1) p.kernels.backward1(x2, dz, dx1, rows, n1, n2, off1, off2, t.K, p.k, p.mul1, p.mul2);
        if (dx2) p.kernels.backward2(x1, dz, dx2, rows, n1, n2, off1, off2, t.K, p.k, p.mul1, p.mul2);
      }
    });
  }
}

/** The offsets of the 0e (or, without parity, 0) copies of an irreps: where biases are added. */
export function scalarPositions(ir: Irreps): number[] {
  const out: number[] = [];
  ir.terms.forEach((t, i) => {
    if (t.ir.l === 0 && t.ir.p !== -1) for (let u = 0; u < t.mul; u++) out.push(ir.offsets[i]! + u);
  });
  return out;
}

/** The constant second input 1x0e (x₂ ≡ 1): the tensor product then is an equivariant linear map. */
export const ONE_SCALAR = (group: Irreps['group']): Irreps => new Irreps(group, [{ mul: 1, ir: { l: 0, p: group === 'O(3)' ? 1 : 0 } }]);
