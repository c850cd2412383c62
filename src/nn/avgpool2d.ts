import { primitive } from '../para/composite.js';
import { checkInput } from '../para/para.js';
import type { Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { Shape } from '../tensor/tensor.js';
import { requirePositive } from './conv2d.js';
import { poolWindow } from './maxpool2d.js';

/**
 * avgpool2d(k[,stride]): [C,H,W] → [C,H′,W′], the mean over each k×k window (stride
 * defaults to k, no padding). Linear, so its pullback is its adjoint: each dy spread
 * evenly, dy/k², over its window. `args` are always [k, stride].
 */
export function avgpool2d(k: number, stride = k, dom?: Shape): Para {
  const where = `avgpool2d(${k},${stride})`;
  requirePositive(where, 'kernel size', k);
  requirePositive(where, 'stride', stride);
  const g = dom && poolWindow(where, dom, k, stride);
  const self: Para = primitive({
    kind: 'avgpool2d',
    args: [k, stride],
    dom,
    cod: g && [g.C, g.Ho, g.Wo],
    at: (d) => avgpool2d(k, stride, d),
    forward: (_t, x, ctx) => {
      if (g) checkInput(self, x);
      const win = g ?? poolWindow(where, x.shape.slice(1), k, stride);
      const planes = x.batch * win.C;
      const y = ctx.alloc([x.batch, win.C, win.Ho, win.Wo], x.dtype, true);
      backend().avgPool(win, x.data, planes, y.data);
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          backend().avgPoolBackward(win, dy.data, planes, dx.data);
          return dx;
        },
      };
    },
  });
  return self;
}
