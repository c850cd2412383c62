import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import type { Para } from '../../para/para.js';
import type { Shape } from '../../tensor/tensor.js';

/** Throws a RangeArgError unless p is a drop probability in [0, 1) (keep probability 1−p in (0, 1]). */
export function checkDropProbability(p: number, where = 'dropout(p)'): void {
  if (!(typeof p === 'number' && p >= 0 && p < 1)) {
    throw new RangeArgError(`${where}: the drop probability p must be in [0, 1) (keep probability 1−p in (0, 1]), got p = ${p}`);
  }
}

/**
 * dropout(p): dropout as a stochastic lens (seed 000, §Markov categories), p the DROP
 * probability as in PyTorch. In training mode the forward samples a mask mᵢ ~ Bernoulli(1−p)
 * from `ctx.rng` and applies inverted scaling, y = x ⊙ m / (1−p), so E[y] = x; the pullback
 * reuses exactly that mask, dx = dy ⊙ m / (1−p) (the "closed" lens: the random state is
 * shared between forward and backward). In evaluation mode it is the identity.
 * No parameters; takes any shape. The kind is 'dropout' (the ONNX exporter maps it to Identity).
 */
export function dropout(p: number, dom?: Shape): Para {
  checkDropProbability(p);
  const keep = 1 - p;
  const scale = 1 / keep;
  return primitive({
    kind: 'dropout',
    args: [p],
    dom,
    cod: dom,
    at: (d) => dropout(p, d),
    forward: (_t, x, ctx) => {
      if (!ctx.training || p === 0) return { y: x, pullback: (dy) => dy };
      // mask holds m/(1−p): 0 at dropped units, 1/(1−p) at kept ones
      const mask = ctx.alloc(x.shape, x.dtype);
      const y = ctx.alloc(x.shape, x.dtype);
      for (let i = 0; i < x.size; i++) {
        const m = ctx.rng.uniform() < keep ? scale : 0;
        mask.data[i] = m;
        y.data[i] = x.data[i]! * m;
      }
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          for (let i = 0; i < dx.size; i++) dx.data[i] = dy.data[i]! * mask.data[i]!;
          return dx;
        },
      };
    },
  });
}
