import { ShapeError } from '../errors.js';
import { primitive } from '../para/composite.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';

/**
 * tokens: [C, H, W] → [H·W, C], a feature map as a sequence of H·W tokens in row-major order
 * (one per pixel, its C channels as features) — the layout attention on grid(H,W) takes, the
 * transpose PyTorch writes as x.flatten(2).transpose(1, 2) (ViT's patch tokens after a strided
 * convolution). A permutation of the values: its pullback is the inverse permutation.
 */
export function tokens(dom?: Shape): Para {
  const [C, H, W] = dom ?? [];
  const self: Para = primitive({
    kind: 'tokens',
    dom,
    cod: dom && [H! * W!, C!],
    at: (s) => {
      if (s.length !== 3) throw new ShapeError(`tokens expects a feature map [*,C,H,W] per sample but got ${describeShape(s)}`);
      return tokens(s);
    },
    forward: (_t, x, ctx) => {
      if (!dom) throw new ShapeError('tokens: compose it after a layer with [C,H,W] outputs (or fix its domain)');
      checkInput(self, x);
      const P = H! * W!,
        c = C!;
      const y = ctx.alloc([x.batch, P, c], x.dtype, true);
      for (let b = 0; b < x.batch; b++) {
        const o = b * P * c;
        for (let ch = 0; ch < c; ch++) for (let p = 0; p < P; p++) y.data[o + p * c + ch] = x.data[o + ch * P + p]!;
      }
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype, true);
          for (let b = 0; b < x.batch; b++) {
            const o = b * P * c;
            for (let ch = 0; ch < c; ch++) for (let p = 0; p < P; p++) dx.data[o + ch * P + p] = dy.data[o + p * c + ch]!;
          }
          return dx;
        },
      };
    },
  });
  return self;
}
