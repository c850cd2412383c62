import { primitive } from '../para/composite.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Para } from '../para/para.js';
import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import type { Shape } from '../tensor/tensor.js';
import { requirePositive } from './conv2d.js';
import { makeWindow } from './im2col.js';
import type { Window } from './im2col.js';

/** Offsets up to here are exact in float32 (arg of maxPool is stored in the data's dtype). */
const MAX_EXACT = 2 ** 24;

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
      const { C, H, W, Ho, Wo } = win,
        B = x.batch,
        inPlane = H * W,
        outPlane = Ho * Wo;
      // both written in full; arg holds where each maximum came from, as an offset into
      // x's data — stored in x's dtype, so exact for float32 only below 2^24: the planes go
      // in groups whose offsets (from the group's start) stay below that
      const y = ctx.alloc([B, C, Ho, Wo], x.dtype, true);
      const arg = ctx.alloc([B, C, Ho, Wo], x.dtype, true);
      const planes = B * C,
        group = Math.max(1, Math.floor(MAX_EXACT / inPlane));
      for (let p0 = 0; p0 < planes; p0 += group) {
        const p1 = Math.min(planes, p0 + group);
        backend().maxPool(
          win,
          x.data.subarray(p0 * inPlane, p1 * inPlane),
          p1 - p0,
          y.data.subarray(p0 * outPlane, p1 * outPlane),
          arg.data.subarray(p0 * outPlane, p1 * outPlane),
        );
      }
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          for (let p0 = 0; p0 < planes; p0 += group) {
            const p1 = Math.min(planes, p0 + group);
            backend().scatterAdd(
              dy.data.subarray(p0 * outPlane, p1 * outPlane),
              arg.data.subarray(p0 * outPlane, p1 * outPlane),
              dx.data.subarray(p0 * inPlane, p1 * inPlane),
            );
          }
          return dx;
        },
      };
    },
  });
  return self;
}
