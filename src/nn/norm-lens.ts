import { ShapeError } from '../errors.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Ctx, Lens, Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
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
 * Pullback (r the row's 1/root, ĝ = dy ⊙ g): dg += Σ_rows dy ⊙ x̂, db += Σ_rows dy and
 *   dx = (ĝ − mean(ĝ) − x̂·mean(ĝ ⊙ x̂))·r   (layernorm),   dx = (ĝ − x̂·mean(ĝ ⊙ x̂))·r   (rmsnorm).
 * The arithmetic is the backend's (Backend.layerNorm, layerNormBackward).
 */
export function normLens(self: Para, centre: boolean, theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
  const d = self.args[0] as number,
    rows = x.size / d;
  if (self.dom) checkInput(self, x);
  else lastAxis(String(self), x.shape.slice(1), d);
  const be = backend();
  const g = theta[0]!.data,
    b = centre ? theta[1]!.data : undefined;
  const y = ctx.alloc(x.shape, x.dtype, true);
  const xhat = ctx.alloc(x.shape, x.dtype, true).data;
  const r = ctx.alloc([rows], x.dtype, true).data;
  be.layerNorm(x.data, rows, d, g, b, NORM_EPS, centre, y.data, xhat, r);
  return {
    y,
    pullback: (dy, dTheta, needDx = true) => {
      const dx = ctx.alloc(x.shape, x.dtype, true);
      be.layerNormBackward(
        dy.data,
        xhat,
        r,
        rows,
        d,
        g,
        centre,
        needDx ? dx.data : undefined,
        dTheta?.[0]!.data,
        dTheta && centre ? dTheta[1]!.data : undefined,
      );
      return dx;
    },
  };
}
