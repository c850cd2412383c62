import { ShapeError } from '../errors.js';
import { primitive } from '../para/composite.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Ctx, Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { Shape, Tensor } from '../tensor/tensor.js';

/**
 * transpose: [m, n] → [n, m] per sample, the symmetry that swaps the two axes of a matrix;
 * its pullback is the transpose back. After it the monoidal product (@, which places samples
 * side by side along their first axis) places columns side by side:
 * `copy >> (transpose @ (f >> transpose)) >> transpose` is x ↦ [x | f(x)] row by row.
 * Takes any matrix shape until composed.
 */
export function transpose(dom?: Shape): Para {
  if (dom && dom.length !== 2) throw new ShapeError(`transpose expects a matrix [*,m,n] per sample but got ${describeShape(dom)}`);
  const self: Para = primitive({
    kind: 'transpose',
    dom,
    cod: dom && [dom[1]!, dom[0]!],
    at: (d) => transpose(d),
    forward: (_t, x, ctx) => {
      if (dom) checkInput(self, x);
      else if (x.rank !== 3) throw new ShapeError(`transpose expects a matrix [*,m,n] per sample but got [${x.shape.join(',')}]`);
      const [m, n] = [x.shape[1]!, x.shape[2]!];
      return { y: swapped(x, m, n, ctx), pullback: (dy) => swapped(dy, n, m, ctx) };
    },
  });
  return self;
}

/** Each sample of x, an m×n matrix, transposed (Backend.swapAxes). */
function swapped(x: Tensor, m: number, n: number, ctx: Ctx): Tensor {
  const y = ctx.alloc([x.batch, n, m], x.dtype, true),
    be = backend(),
    per = m * n;
  for (let b = 0; b < x.batch; b++) be.swapAxes(x.data.subarray(b * per, (b + 1) * per), m, n, 1, y.data.subarray(b * per, (b + 1) * per));
  return y;
}
