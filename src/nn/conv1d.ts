import type { Para } from '../para/para.js';
import type { Shape } from '../tensor/tensor.js';
import { checkChannels, checkConvArgs, convForwards, convParams, windowGeometry } from './conv2d.js';
import type { ConvGeometry } from './conv2d.js';
import { FusableLayer } from './fuse.js';
import { makeWindow } from './im2col.js';
import type { Window } from './im2col.js';

/**
 * conv1d(inC,outC,k[,stride[,pad]]): 1-d cross-correlation [inC,L] → [outC,L′],
 * L′ = ⌊(L + 2·pad − k)/stride⌋ + 1, weight [outC,inC,k], bias [outC] (PyTorch's Conv1d
 * layout and default init). It is conv2d's lens on a 1×L image with a 1×k window, so
 * the im2col/gemm/col2im path is shared. `args` are always [inC,outC,k,stride,pad].
 */
export function conv1d(inC: number, outC: number, k: number, stride = 1, pad = 0, dom?: Shape): Para {
  const where = `conv1d(${inC},${outC},${k},${stride},${pad})`;
  checkConvArgs(where, inC, outC, k, stride, pad);
  const windowOf = (d: Shape): Window => {
    checkChannels(where, d, 2, inC, '[C,L]');
    return makeWindow(where, inC, 1, d[1]!, 1, k, 1, stride, 0, pad);
  };
  const geometryOf = (d: Shape): ConvGeometry => {
    const w = windowOf(d);
    return windowGeometry(w, [outC, w.Wo]);
  };
  const fixed = dom && geometryOf(dom);
  const lens = convForwards(() => self, fixed, geometryOf, outC);
  const self: Para = new FusableLayer(
    {
      kind: 'conv1d',
      args: [inC, outC, k, stride, pad],
      dom,
      cod: fixed?.cod,
      params: convParams(outC, [inC, k], inC * k),
      at: (d) => conv1d(inC, outC, k, stride, pad, d),
      forward: lens.forward,
    },
    lens.withActivation,
  );
  return self;
}
