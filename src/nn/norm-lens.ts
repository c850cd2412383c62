import { ShapeError } from '../errors.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Ctx, Lens, Para } from '../para/para.js';
import type { Shape, Tensor } from '../tensor/tensor.js';

/** ε inside the square root of both norms (PyTorch's LayerNorm default). */
export const NORM_EPS = 1e-5;

/** The leading axes of `dom`, checked to end in d features (a layer acting on the last axis). */
export function lastAxis(where: string, dom: Shape, d: number): Shape {
  if (dom[dom.length - 1] !== d) throw new ShapeError(`${where} expects [*,…,${d}] but got ${describeShape(dom)}`);
  return dom.slice(0, -1);
}

/**
 * The lens of a normalisation over the last axis (d features per row), with gain g and,
 * when `centre`, bias b and mean subtraction:
 *   layernorm  x̂ = (x − μ)/√(σ² + ε),  y = g ⊙ x̂ + b
 *   rmsnorm    x̂ = x/√(mean(x²) + ε),  y = g ⊙ x̂
 * Pullback (r the row's root, ĝ = dy ⊙ g): dg += Σ_rows dy ⊙ x̂, db += Σ_rows dy and
 *   dx = (ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂))/r   (layernorm),   dx = (ĝ − x̂·mean(ĝ ⊙ x̂))/r   (rmsnorm).
 */
export function normLens(self: Para, centre: boolean, theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
  if (self.dom) checkInput(self, x);
  else lastAxis(String(self), x.shape.slice(1), self.args[0] as number);
  const d = self.args[0] as number, rows = x.size / d;
  const g = theta[0]!.data, b = centre ? theta[1]!.data : undefined;
  const xs = x.data;
  const y = ctx.alloc(x.shape, x.dtype, true);
  const xhat = ctx.alloc(x.shape, x.dtype, true).data;
  const inv = new Float64Array(rows);
  for (let r = 0; r < rows; r++) {
    const o = r * d;
    let mu = 0;
    if (centre) {
      for (let j = 0; j < d; j++) mu += xs[o + j]!;
      mu /= d;
    }
    let ss = 0;
    for (let j = 0; j < d; j++) ss += (xs[o + j]! - mu) ** 2;
    const s = 1 / Math.sqrt(ss / d + NORM_EPS);
    inv[r] = s;
    for (let j = 0; j < d; j++) {
      const h = (xs[o + j]! - mu) * s;
      xhat[o + j] = h;
      y.data[o + j] = g[j]! * h + (b ? b[j]! : 0);
    }
  }
  return {
    y,
    pullback: (dy, dTheta, needDx = true) => {
      const dys = dy.data;
      if (dTheta) {
        const dg = dTheta[0]!.data, db = centre ? dTheta[1]!.data : undefined;
        for (let r = 0; r < rows; r++) {
          const o = r * d;
          for (let j = 0; j < d; j++) {
            dg[j] += dys[o + j]! * xhat[o + j]!;
            if (db) db[j] += dys[o + j]!;
          }
        }
      }
      const dx = ctx.alloc(x.shape, x.dtype, needDx);
      if (!needDx) return dx;
      for (let r = 0; r < rows; r++) {
        const o = r * d;
        let mg = 0, mgx = 0;
        for (let j = 0; j < d; j++) {
          const gh = dys[o + j]! * g[j]!;
          mg += gh;
          mgx += gh * xhat[o + j]!;
        }
        mg = centre ? mg / d : 0;
        mgx /= d;
        const s = inv[r]!;
        for (let j = 0; j < d; j++) dx.data[o + j] = (dys[o + j]! * g[j]! - mg - xhat[o + j]! * mgx) * s;
      }
      return dx;
    },
  };
}
