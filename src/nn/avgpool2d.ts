import { primitive } from '../para/category.js';
import { checkInput } from '../para/para.js';
import type { Para } from '../para/para.js';
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
      const { C, H, W, Ho, Wo } = g ?? poolWindow(where, x.shape.slice(1), k, stride);
      const B = x.batch, planes = B * C, inv = 1 / (k * k);
      const y = ctx.alloc([B, C, Ho, Wo], x.dtype);
      // visits every (output, input) pair of the windows: f(o, i)
      const each = (f: (o: number, i: number) => void): void => {
        for (let pl = 0; pl < planes; pl++) {
          for (let oh = 0; oh < Ho; oh++) {
            for (let ow = 0; ow < Wo; ow++) {
              const o = (pl * Ho + oh) * Wo + ow;
              for (let i = 0; i < k; i++) {
                const row = pl * H * W + (oh * stride + i) * W + ow * stride;
                for (let j = 0; j < k; j++) f(o, row + j);
              }
            }
          }
        }
      };
      each((o, i) => (y.data[o] += x.data[i]! * inv));
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          each((o, i) => (dx.data[i] += dy.data[o]! * inv));
          return dx;
        },
      };
    },
  });
  return self;
}
