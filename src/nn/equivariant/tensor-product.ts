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

/** Adds the bias of the even scalar outputs to rows of out.dim values (row r at r·ld). */
export function addScalarBias(out: Irreps, rows: number, Y: Data, bias: Data | undefined, ld = out.dim): void {
  if (!bias) return;
  const pos = scalarPositions(out);
  for (let r = 0; r < rows; r++) for (let k = 0; k < pos.length; k++) Y[r * ld + pos[k]!]! += bias[k]!;
}

/** The bias gradient: db_k += Σ_rows dY[r, pos_k] (row r at r·ld). */
export function scalarBiasGrad(out: Irreps, rows: number, dY: Data, dbias: Data | undefined, ld = out.dim): void {
  if (!dbias) return;
  const pos = scalarPositions(out);
  for (let r = 0; r < rows; r++) for (let k = 0; k < pos.length; k++) dbias[k]! += dY[r * ld + pos[k]!]!;
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
  return productLayer(plan, false, n);
}

/**
 * steerable(in1, in2, out): the tensor product beside its second input, which it passes on,
 * [x₁ | x₂] ↦ [TP(x₁, x₂) + b | x₂] — SEGNN's steerable linear layer (Brandstetter et al. 2022,
 * eq. 9), conditioned on attributes x₂ that the layers after it read too. It is the composite
 * (id @ copy) >> (tensor_product @ id) in one pass (test/nn/equivariant/cloud-graph.test.ts).
 */
export function steerable(plan: TensorProductPlan, n?: number): Para {
  return productLayer(plan, true, n);
}

/** tensor_product, or with `keep` steerable: its second input's rows appended to the output's. */
function productLayer(plan: TensorProductPlan, keep: boolean, n?: number): Para {
  const { in1: a, in2: b, out: o } = plan;
  const d1 = a.dim,
    d2 = b.dim,
    dIn = d1 + d2,
    dOut = o.dim + (keep ? d2 : 0);
  const self: Para = primitive({
    kind: keep ? 'steerable' : 'tensor_product',
    args: n ? [String(a), String(b), String(o), n] : [String(a), String(b), String(o)],
    dom: rowsShape(dIn, n),
    cod: rowsShape(dOut, n),
    params: tpParams(plan),
    forward: (theta, x, ctx) => {
      checkInput(self, x);
      const rows = x.batch * (n ?? 1),
        mem = ctxScratch(ctx),
        X = x.data;
      // x1 and x2 read in place: the two halves of each row [x1 | x2]
      const y = ctx.alloc([x.batch, ...rowsShape(dOut, n)], x.dtype),
        Y = y.data;
      const saved = plan.forward(rows, X, X.subarray(d1), theta[0]!.data, Y, true, mem, dIn, dIn, dOut);
      addScalarBias(o, rows, Y, theta[1]?.data, dOut);
      if (keep) for (let r = 0; r < rows; r++) Y.set(X.subarray(r * dIn + d1, (r + 1) * dIn), r * dOut + o.dim);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype),
            D = dy.data,
            dX = dx.data;
          plan.backward(saved, theta[0]!.data, D, dTheta ? dTheta[0]!.data : null, needDx ? dX : null, needDx ? dX.subarray(d1) : null, mem);
          if (dTheta) scalarBiasGrad(o, rows, D, dTheta[1]?.data, dOut);
          // the passed-on x2's gradient joins the product's
          if (keep && needDx) for (let r = 0; r < rows; r++) for (let k = 0; k < d2; k++) dX[r * dIn + d1 + k]! += D[r * dOut + o.dim + k]!;
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
