import { RangeArgError } from '../errors.js';
import { primitive } from '../para/category.js';
import { checkInput } from '../para/para.js';
import type { Para } from '../para/para.js';
import { backend } from '../tensor/backend.js';
import { glorotUniform, zeros } from './init.js';

/**
 * dense(in,out): the affine map x ↦ x·Wᵀ + b with W: [out,in] (PyTorch's layout) and b: [out].
 * Pullback (seed 000, §Para): dW = dyᵀ·x, db = Σ_batch dy, dx = dy·W.
 */
export function dense(inDim: number, outDim: number): Para {
  if (!(Number.isInteger(inDim) && inDim > 0 && Number.isInteger(outDim) && outDim > 0)) {
    throw new RangeArgError(`dense(in,out) needs positive integer sizes, got dense(${inDim},${outDim})`);
  }
  const self: Para = primitive({
    kind: 'dense',
    args: [inDim, outDim],
    dom: [inDim],
    cod: [outDim],
    params: [
      { name: 'weight', shape: [outDim, inDim], init: glorotUniform(inDim, outDim) },
      { name: 'bias', shape: [outDim], init: zeros },
    ],
    forward: ([W, b], x, ctx) => {
      checkInput(self, x);
      const B = x.batch;
      const be = backend();
      const y = ctx.alloc([B, outDim], x.dtype);
      be.gemm(false, true, B, outDim, inDim, x.data, W!.data, y.data, false);
      be.addRowVector(y.data, b!.data, B, outDim, y.data, 'identity');
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          if (dTheta) {
            be.gemm(true, false, outDim, inDim, B, dy.data, x.data, dTheta[0]!.data, true);
            be.sumRows(dy.data, B, outDim, dTheta[1]!.data, true);
          }
          const dx = ctx.alloc([B, inDim], x.dtype);
          if (needDx) be.gemm(false, false, B, inDim, outDim, dy.data, W!.data, dx.data, false);
          return dx;
        },
      };
    },
  });
  return self;
}
