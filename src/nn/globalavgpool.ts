import { ShapeError } from '../errors.js';
import { primitive } from '../para/composite.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Para } from '../para/para.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';

/**
 * globalavgpool: [C,H,W] (or [C, …] of any rank ≥ 2) → [C], the mean of each channel over
 * all positions (PyTorch's `AdaptiveAvgPool2d(1)` then flatten). Pullback: dy_c / (H·W)
 * to every position of channel c.
 */
export function globalavgpool(dom?: Shape): Para {
  const check = (d: Shape): void => {
    if (d.length < 2) throw new ShapeError(`globalavgpool expects [C,H,W] per sample but got ${describeShape(d)}`);
  };
  if (dom) check(dom);
  const self: Para = primitive({
    kind: 'globalavgpool',
    dom,
    cod: dom && [dom[0]!],
    at: (d) => globalavgpool(d),
    forward: (_t, x, ctx) => {
      if (dom) checkInput(self, x);
      else check(x.shape.slice(1));
      const B = x.batch,
        C = x.shape[1]!,
        P = sizeOf(x.shape.slice(2)),
        inv = 1 / P;
      const y = ctx.alloc([B, C], x.dtype);
      for (let bc = 0; bc < B * C; bc++) {
        let s = 0;
        for (let p = bc * P, e = p + P; p < e; p++) s += x.data[p]!;
        y.data[bc] = s * inv;
      }
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          for (let bc = 0; bc < B * C; bc++) dx.data.fill(dy.data[bc]! * inv, bc * P, (bc + 1) * P);
          return dx;
        },
      };
    },
  });
  return self;
}
