import { RangeArgError, ShapeError } from '../../errors.js';
import { glorotUniform } from '../initializers.js';
import { primitive } from '../../para/composite.js';
import { checkInput, describeShape } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';

/**
 * adapter(p,q): the seed's NatTransform — a linear map h ↦ h·Wᵀ, W: [q,p], no bias — as
 * a Para morphism, the default component η_X: F(X) → G(X) of a natural transformation
 * between two representations. Pullback: dW = dyᵀ·h, dh = dy·W. Any other morphism
 * [p] → [q] (e.g. dense(p,q), an MLP) can serve as η as well.
 */
export function adapter(p: number, q: number): Para {
  if (!(Number.isInteger(p) && p > 0 && Number.isInteger(q) && q > 0))
    throw new RangeArgError(`adapter(p,q) needs positive integer sizes, got adapter(${p},${q})`);
  const self: Para = primitive({
    kind: 'adapter',
    args: [p, q],
    dom: [p],
    cod: [q],
    params: [{ name: 'weight', shape: [q, p], init: glorotUniform(p, q) }],
    forward: ([W], x, ctx) => {
      checkInput(self, x);
      const B = x.batch,
        be = backend();
      const y = ctx.alloc([B, q], x.dtype);
      be.gemm(false, true, B, q, p, x.data, W!.data, y.data, false);
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          if (dTheta) be.gemm(true, false, q, p, B, dy.data, x.data, dTheta[0]!.data, true);
          const dx = ctx.alloc([B, p], x.dtype);
          if (needDx) be.gemm(false, false, B, p, q, dy.data, W!.data, dx.data, false);
          return dx;
        },
      };
    },
  });
  return self;
}

/**
 * Checks that a morphism can be the component η: ℝᵖ → ℝ^q between feature spaces of the
 * given sizes; the error names both the adapter's shapes and the features' shapes.
 */
export function checkAdapter(eta: Para, p: number, q: number, where = 'natural transformation'): Para {
  const fixed = eta.dom ? eta : eta.at([p]);
  const dom = fixed.dom!,
    cod = fixed.cod;
  if (dom.length !== 1 || dom[0] !== p || !cod || cod.length !== 1 || cod[0] !== q) {
    throw new ShapeError(
      `${where}: the adapter ${eta} maps ${describeShape(dom)} → ${describeShape(cod)} but the features need [*,${p}] → [*,${q}] (source features [*,${p}], target features [*,${q}])`,
    );
  }
  return fixed;
}
