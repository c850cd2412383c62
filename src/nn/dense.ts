import { RangeArgError } from '../errors.js';
import { checkInput } from '../para/para.js';
import type { Ctx, Lens, Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { SwapOp } from '../tensor/backend.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { throughActivation } from './activation.js';
import { FusableLayer } from './fuse.js';
import { glorotUniform, zeros } from './initializers.js';

/**
 * dense(in,out): the affine map x ↦ x·Wᵀ + b with W: [out,in] (PyTorch's layout) and b: [out].
 * Pullback (seed 000, §Para): dW = dyᵀ·x, db = Σ_batch dy, dx = dy·W. On [*, …, in] (after a
 * layer on sequences) it acts on the last axis at every position: dense(64,V) is the
 * language-model head.
 */
export function dense(inDim: number, outDim: number, lead: Shape = []): Para {
  if (!(Number.isInteger(inDim) && inDim > 0 && Number.isInteger(outDim) && outDim > 0)) {
    throw new RangeArgError(`dense(in,out) needs positive integer sizes, got dense(${inDim},${outDim})`);
  }
  const self: Para = new FusableLayer(
    {
      kind: 'dense',
      args: [inDim, outDim],
      dom: [...lead, inDim],
      cod: [...lead, outDim],
      positionwise: true,
      at: (d) => dense(inDim, outDim, d.slice(0, -1)),
      params: [
        { name: 'weight', shape: [outDim, inDim], init: glorotUniform(inDim, outDim) },
        { name: 'bias', shape: [outDim], init: zeros },
      ],
      forward: ([W, b], x, ctx) => denseLens(self, W!, b!, x, ctx, 'identity'),
    },
    (act) =>
      ([W, b], x, ctx) =>
        denseLens(self, W!, b!, x, ctx, act),
  );
  return self;
}

/**
 * The lens of dense followed by `act` (identity: dense alone). Forward: y = act(x·Wᵀ + b),
 * the product with its bias + activation epilogue in one call. Pullback: dz = dy ⊙ act′ (read off y), then
 * dW += dzᵀ·x, db += Σ_batch dz, dx = dz·W.
 */
function denseLens(self: Para, W: Tensor, b: Tensor, x: Tensor, ctx: Ctx, act: SwapOp): Lens {
  checkInput(self, x);
  const inDim = self.args[0] as number,
    outDim = self.args[1] as number,
    rows = x.size / inDim;
  const be = backend();
  const y = ctx.alloc([x.batch, ...self.cod!], x.dtype, true);
  be.gemm(false, true, rows, outDim, inDim, x.data, W.data, y.data, false, b.data, act);
  return {
    y,
    pullback: (dy, dTheta, needDx = true) => {
      const dz = throughActivation(act, y, dy, ctx);
      if (dTheta) {
        be.gemm(true, false, outDim, inDim, rows, dz.data, x.data, dTheta[0]!.data, true);
        be.sumRows(dz.data, rows, outDim, dTheta[1]!.data, true);
      }
      const dx = ctx.alloc(x.shape, x.dtype, needDx);
      if (needDx) be.gemm(false, false, rows, inDim, outDim, dz.data, W.data, dx.data, false);
      return dx;
    },
  };
}
