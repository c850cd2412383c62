import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import type { Data } from '../../tensor/tensor.js';
import { Irreps, toIrreps } from '../../symmetry/irreps/irrep.js';
import type { IrrepsLike } from '../../symmetry/irreps/irrep.js';

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/**
 * The gated nonlinearity on irreps (Weiler et al. 2018, "3D steerable CNNs", §4.3; e3nn's
 * `Gate`): the input is [scalars | gates | gated], one gate scalar per gated irrep copy; the
 * output is [act(scalars) | σ(gate_k)·(k-th gated copy)]. Even scalars (0e, or 0 without
 * parity) go through swish s·σ(s), odd ones (0o) through tanh (an odd function keeps their
 * parity); gates must be even. Multiplying a copy by an invariant commutes with the group, so
 * the map is equivariant.
 */
export class GatePlan {
  readonly inDim: number;
  readonly outDim: number;
  /** Per gated copy: its offset (in the gated block) and dimension. */
  private readonly copies: readonly (readonly [number, number])[];
  /** Per scalar: true when odd (tanh). */
  private readonly odd: readonly boolean[];
  constructor(
    readonly scalars: Irreps,
    readonly gated: Irreps,
  ) {
    if (scalars.terms.some((t) => t.ir.l !== 0)) throw new RangeArgError(`irreps_gate: the first irreps must be scalars (ℓ = 0), got ${scalars}`);
    const copies: [number, number][] = [];
    gated.terms.forEach((t, i) => {
      for (let u = 0; u < t.mul; u++) copies.push([gated.offsets[i]! + u * gated.irDim(i), gated.irDim(i)]);
    });
    this.copies = copies;
    this.odd = scalars.terms.flatMap((t) => Array<boolean>(t.mul).fill(t.ir.p === -1));
    this.inDim = scalars.dim + copies.length + gated.dim;
    this.outDim = scalars.dim + gated.dim;
  }
  /** The irreps the layer before the gate must output: scalars + gates (0e) + gated. */
  get inputIrreps(): Irreps {
    const g = this.copies.length;
    const even = { l: 0, p: this.gated.group === 'O(3)' ? 1 : 0 } as const;
    return new Irreps(this.gated.group, [...this.scalars.terms, ...(g ? [{ mul: g, ir: even }] : []), ...this.gated.terms]);
  }
  forward(rows: number, X: Data, Y: Data): void {
    const { inDim, outDim, copies, odd } = this,
      ns = this.scalars.dim,
      ng = copies.length;
    for (let r = 0; r < rows; r++) {
      const xo = r * inDim,
        yo = r * outDim;
      for (let s = 0; s < ns; s++) {
        const z = X[xo + s]!;
        Y[yo + s] = odd[s] ? Math.tanh(z) : z * sigmoid(z);
      }
      for (let k = 0; k < ng; k++) {
        const g = sigmoid(X[xo + ns + k]!),
          [off, d] = copies[k]!;
        for (let j = 0; j < d; j++) Y[yo + ns + off + j] = g * X[xo + ns + ng + off + j]!;
      }
    }
  }
  /** dX (+)= the pullback of dY. */
  backward(rows: number, X: Data, dY: Data, dX: Data): void {
    const { inDim, outDim, copies, odd } = this,
      ns = this.scalars.dim,
      ng = copies.length;
    for (let r = 0; r < rows; r++) {
      const xo = r * inDim,
        yo = r * outDim;
      for (let s = 0; s < ns; s++) {
        const z = X[xo + s]!;
        if (odd[s]) {
          const t = Math.tanh(z);
          dX[xo + s]! += dY[yo + s]! * (1 - t * t);
        } else {
          const sg = sigmoid(z);
          dX[xo + s]! += dY[yo + s]! * (sg + z * sg * (1 - sg));
        }
      }
      for (let k = 0; k < ng; k++) {
        const g = sigmoid(X[xo + ns + k]!),
          [off, d] = copies[k]!;
        let dg = 0;
        for (let j = 0; j < d; j++) {
          const xi = xo + ns + ng + off + j;
          dg += dY[yo + ns + off + j]! * X[xi]!;
          dX[xi]! += g * dY[yo + ns + off + j]!;
        }
        dX[xo + ns + k]! += dg * g * (1 - g);
      }
    }
  }
}

/** The per-sample shape: [n, d] for n points, [d] without. */
export const rowsShape = (d: number, n?: number): number[] => (n ? [n, d] : [d]);

/**
 * irreps_gate(scalars, gated[, n]): the gated nonlinearity as a layer, [.., scalars + gates +
 * gated] → [.., scalars + gated], on one feature vector or on each of n points.
 */
export function irrepsGate(scalars: IrrepsLike, gated: IrrepsLike, n?: number): Para {
  const s = toIrreps(scalars),
    g = toIrreps(gated, s.group);
  const plan = new GatePlan(s, g);
  const self: Para = primitive({
    kind: 'irreps_gate',
    args: n ? [String(s), String(g), n] : [String(s), String(g)],
    dom: rowsShape(plan.inDim, n),
    cod: rowsShape(plan.outDim, n),
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const rows = x.batch * (n ?? 1);
      const y = ctx.alloc([x.batch, ...rowsShape(plan.outDim, n)], x.dtype, true);
      plan.forward(rows, x.data, y.data);
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          if (needDx) plan.backward(rows, x.data, dy.data, dx.data);
          return dx;
        },
      };
    },
  });
  return self;
}
