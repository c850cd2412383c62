import { primitive } from '../para/composite.js';
import { checkInput } from '../para/para.js';
import type { Para } from '../para/para.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';

/**
 * flatten: [d₁,…,dₙ] → [d₁·…·dₙ], the row-major reading of a sample (C·H·W for an image,
 * as PyTorch's `nn.Flatten`). An isomorphism: its pullback reshapes dy back. The data is
 * shared, not copied. Takes any shape until composed.
 */
export function flatten(dom?: Shape): Para {
  const self: Para = primitive({
    kind: 'flatten',
    dom,
    cod: dom && [sizeOf(dom)],
    at: (d) => flatten(d),
    forward: (_t, x) => {
      if (dom) checkInput(self, x);
      const y = x.reshape([x.batch, x.size / Math.max(1, x.batch)]);
      return { y, pullback: (dy) => dy.reshape(x.shape) };
    },
  });
  return self;
}
