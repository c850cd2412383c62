import { RangeArgError } from '../errors.js';
import { primitive } from '../para/composite.js';
import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';
import { sizeArgs } from './activation.js';

/** leaky_relu(α): x ↦ x for x > 0, αx otherwise; pullback dx = dy·(1 or α). */
export function leakyRelu(alpha = 0.01, dom?: Shape, inferred = false): Para {
  if (!(alpha >= 0 && alpha < 1)) throw new RangeArgError(`leaky_relu(alpha) needs 0 ≤ alpha < 1, got ${alpha}`);
  return primitive({
    kind: 'leaky_relu',
    args: [alpha, ...sizeArgs(dom, inferred)],
    dom,
    cod: dom,
    at: (d) => leakyRelu(alpha, d, true),
    positionwise: true,
    forward: (_t, x, ctx) => {
      const y = ctx.alloc(x.shape, x.dtype);
      const xs = x.data,
        ys = y.data;
      for (let i = 0; i < xs.length; i++) ys[i] = xs[i]! > 0 ? xs[i]! : alpha * xs[i]!;
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          for (let i = 0; i < xs.length; i++) dx.data[i] = xs[i]! > 0 ? dy.data[i]! : alpha * dy.data[i]!;
          return dx;
        },
      };
    },
  });
}
