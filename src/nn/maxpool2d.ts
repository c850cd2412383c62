import { primitive } from '../para/category.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Para } from '../para/para.js';
import { ShapeError } from '../errors.js';
import { backend } from '../tensor/backend.js';
import type { Shape } from '../tensor/tensor.js';
import { requirePositive } from './conv2d.js';
import { makeWindow } from './im2col.js';
import type { Window } from './im2col.js';

/** The window geometry of a k×k pooling with stride s over a [C,H,W] sample. */
export function poolWindow(where: string, d: Shape, k: number, s: number): Window {
  if (d.length !== 3) throw new ShapeError(`${where} expects [C,H,W] per sample but got ${describeShape(d)}`);
  return makeWindow(where, d[0]!, d[1]!, d[2]!, k, k, s, s, 0, 0);
}

/**
 * maxpool2d(k[,stride]): [C,H,W] → [C,H′,W′], the maximum over each k×k window
 * (stride defaults to k, no padding). Its pullback sends dy to the arg-max of each window
 * (the first one on ties, as PyTorch does) — the derivative of max where it exists.
 * `args` are always [k, stride].
 */
export function maxpool2d(k: number, stride = k, dom?: Shape): Para {
  const where = `maxpool2d(${k},${stride})`;
  requirePositive(where, 'kernel size', k);
  requirePositive(where, 'stride', stride);
  const g = dom && poolWindow(where, dom, k, stride);
  const self: Para = primitive({
    kind: 'maxpool2d',
    args: [k, stride],
    dom,
    cod: g && [g.C, g.Ho, g.Wo],
    at: (d) => maxpool2d(k, stride, d),
    forward: (_t, x, ctx) => {
      if (g) checkInput(self, x);
      const win = g ?? poolWindow(where, x.shape.slice(1), k, stride);
      const { C, Ho, Wo } = win, B = x.batch;
      // both written in full; arg holds where each maximum came from, as an offset into x
      // (exact in float32 below 2^24)
      const y = ctx.alloc([B, C, Ho, Wo], x.dtype, true);
      const arg = ctx.alloc([B, C, Ho, Wo], x.dtype, true);
      backend().maxPool(win, x.data, B * C, y.data, arg.data);
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          backend().scatterAdd(dy.data, arg.data, dx.data);
          return dx;
        },
      };
    },
  });
  return self;
}
