import { primitive } from '../para/category.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Para } from '../para/para.js';
import { ShapeError } from '../errors.js';
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
      const { C, H, W, Ho, Wo } = g ?? poolWindow(where, x.shape.slice(1), k, stride);
      const B = x.batch, planes = B * C;
      const y = ctx.alloc([B, C, Ho, Wo], x.dtype);
      // where each maximum came from, as an offset into x (exact in float32 below 2^24)
      const arg = ctx.alloc([B, C, Ho, Wo], x.dtype);
      const xd = x.data, yd = y.data, ad = arg.data;
      for (let pl = 0; pl < planes; pl++) {
        const xOff = pl * H * W;
        let o = pl * Ho * Wo;
        for (let oh = 0; oh < Ho; oh++) {
          const top = xOff + oh * stride * W;
          for (let ow = 0; ow < Wo; ow++, o++) {
            let best = -Infinity, at = top + ow * stride;
            // `!(v <= best)`: a larger value or a NaN takes over (a NaN stays, as in PyTorch); ties keep the first
            window: for (let row = top + ow * stride, i = 0; i < k; i++, row += W) {
              for (let q = row; q < row + k; q++) {
                const v = xd[q]!;
                if (!(v <= best)) {
                  best = v;
                  at = q;
                  if (v !== v) break window;
                }
              }
            }
            yd[o] = best;
            ad[o] = at;
          }
        }
      }
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          for (let o = 0; o < dy.size; o++) dx.data[arg.data[o]!] += dy.data[o]!;
          return dx;
        },
      };
    },
  });
  return self;
}
