import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Ctx, Para, ParamSpec } from '../../para/para.js';
import type { Data } from '../../tensor/tensor.js';
import { RangeArgError } from '../../errors.js';
import { toIrreps } from '../../symmetry/irreps/irrep.js';
import type { Irreps, IrrepsLike } from '../../symmetry/irreps/irrep.js';
import { rowsShape } from './irreps-gate.js';
import { ONE_SCALAR, scalarPositions, TensorProductPlan } from './tp-kernel.js';
import type { Scratch } from './tp-kernel.js';

/** Scratch memory from a Ctx (its arena when training). */
export const ctxScratch =
  (ctx: Ctx): Scratch =>
  (n, f64) =>
    ctx.alloc([n], f64 ? 'float64' : 'float32').data;

/**
 * The parameters of a tensor-product plan: the path weights W ~ U(−1, 1) and a bias per even
 * scalar output (zero). With the plan's 1/√fan-in normalisation this is SEGNN's initialisation,
 * PyTorch's Linear default: each output component has variance 1/3 of its inputs'.
 */
export function tpParams(plan: TensorProductPlan, prefix = ''): ParamSpec[] {
  const nb = scalarPositions(plan.out).length;
  return [
    {
      name: `${prefix}weight`,
      shape: [plan.nWeights],
      init: (rng, out) => {
        for (let i = 0; i < out.length; i++) out[i] = 2 * rng.uniform() - 1;
      },
    },
    ...(nb ? [{ name: `${prefix}bias`, shape: [nb], init: (_r: unknown, out: Data) => out.fill(0) }] : []),
  ];
}

/** Adds the bias of the even scalar outputs to rows × out.dim values. */
export function addScalarBias(out: Irreps, rows: number, Y: Data, bias: Data | undefined): void {
  if (!bias) return;
  const pos = scalarPositions(out),
    n = out.dim;
  for (let r = 0; r < rows; r++) for (let k = 0; k < pos.length; k++) Y[r * n + pos[k]!] += bias[k]!;
}

/** The bias gradient: db_k += Σ_rows dY[r, pos_k]. */
export function scalarBiasGrad(out: Irreps, rows: number, dY: Data, dbias: Data | undefined): void {
  if (!dbias) return;
  const pos = scalarPositions(out),
    n = out.dim;
  for (let r = 0; r < rows; r++) for (let k = 0; k < pos.length; k++) dbias[k] += dY[r * n + pos[k]!]!;
}

/**
 * tensor_product(in1, in2, out[, n]): the fully connected tensor product of irreps with learned
 * weights per path ℓ₁ ⊗ ℓ₂ → ℓ₃ and per copy (u, v, w), plus a bias on the even scalar outputs
 * (TensorProductPlan). The input is the concatenation [x₁ | x₂] of one vector in each irreps
 * (on each of n points when n is given); the output is in `out`. Bilinear in (x₁, x₂), and
 * equivariant: TP(D₁(g)x₁, D₂(g)x₂) = D_out(g)·TP(x₁, x₂) for every g in SO(3) (O(3) with parities).
 */
export function tensorProduct(in1: IrrepsLike, in2: IrrepsLike, out: IrrepsLike, n?: number): Para {
  const a = toIrreps(in1),
    b = toIrreps(in2, a.group),
    o = toIrreps(out, a.group);
  const plan = new TensorProductPlan(a, b, o);
  if (!plan.paths.length) throw new RangeArgError(`tensor_product: no path couples ${a} ⊗ ${b} to any irrep of ${o}`);
  return tensorProductOf(plan, n);
}

/** The tensor_product layer of a plan (any plan: one without paths maps everything to its bias). */
export function tensorProductOf(plan: TensorProductPlan, n?: number): Para {
  const { in1: a, in2: b, out: o } = plan;
  const d1 = a.dim,
    d2 = b.dim,
    dIn = d1 + d2;
  const self: Para = primitive({
    kind: 'tensor_product',
    args: n ? [String(a), String(b), String(o), n] : [String(a), String(b), String(o)],
    dom: rowsShape(dIn, n),
    cod: rowsShape(o.dim, n),
    params: tpParams(plan),
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const rows = x.batch * (n ?? 1),
        mem = ctxScratch(ctx),
        f64 = x.dtype === 'float64';
      // split [x1 | x2] into two row-major blocks
      const x1 = mem(rows * d1, f64),
        x2 = mem(rows * d2, f64);
      for (let r = 0; r < rows; r++) {
        x1.set(x.data.subarray(r * dIn, r * dIn + d1), r * d1);
        x2.set(x.data.subarray(r * dIn + d1, (r + 1) * dIn), r * d2);
      }
      const y = ctx.alloc([x.batch, ...rowsShape(o.dim, n)], x.dtype);
      const saved = plan.forward(rows, x1, x2, theta[0]!.data, y.data, false, mem);
      addScalarBias(o, rows, y.data, theta[1]?.data);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          const dx1 = needDx ? mem(rows * d1, f64) : null,
            dx2 = needDx ? mem(rows * d2, f64) : null;
          plan.backward(saved, theta[0]!.data, dy.data, dTheta ? dTheta[0]!.data : null, dx1, dx2, mem);
          if (dTheta) scalarBiasGrad(o, rows, dy.data, dTheta[1]?.data);
          if (dx1 && dx2)
            for (let r = 0; r < rows; r++) {
              dx.data.set(dx1.subarray(r * d1, (r + 1) * d1), r * dIn);
              dx.data.set(dx2.subarray(r * d2, (r + 1) * d2), r * dIn + d1);
            }
          return dx;
        },
      };
    },
  });
  return self;
}

/**
 * irreps_linear(in, out[, n]): the equivariant linear map between irreps (e3nn's `o3.Linear`):
 * W_ℓ mixing the copies of each irrep of `in` into the copies of the same irrep of `out`, plus
 * a bias on the even scalars — the tensor product with the constant 1x0e, so Schur's lemma
 * leaves exactly these weights.
 */
export function irrepsLinear(inIrreps: IrrepsLike, out: IrrepsLike, n?: number): Para {
  const a = toIrreps(inIrreps),
    o = toIrreps(out, a.group);
  const plan = new TensorProductPlan(a, ONE_SCALAR(a.group), o);
  const d = a.dim;
  const self: Para = primitive({
    kind: 'irreps_linear',
    args: n ? [String(a), String(o), n] : [String(a), String(o)],
    dom: rowsShape(d, n),
    cod: rowsShape(o.dim, n),
    params: tpParams(plan),
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const rows = x.batch * (n ?? 1),
        mem = ctxScratch(ctx),
        f64 = x.dtype === 'float64';
      const one = mem(rows, f64).fill(1);
      const y = ctx.alloc([x.batch, ...rowsShape(o.dim, n)], x.dtype);
      const saved = plan.forward(rows, x.data, one, theta[0]!.data, y.data, false, mem);
      addScalarBias(o, rows, y.data, theta[1]?.data);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          plan.backward(saved, theta[0]!.data, dy.data, dTheta ? dTheta[0]!.data : null, needDx ? dx.data : null, null, mem);
          if (dTheta) scalarBiasGrad(o, rows, dy.data, dTheta[1]?.data);
          return dx;
        },
      };
    },
  });
  return self;
}
