import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { checkPoints } from './point-cloud.js';

/**
 * displace(n): a point cloud [n, 3 + 3] of positions x and one vector feature δ (1x1o) →
 * the moved positions x + δ, [n, 3]. The head of a model that predicts where points go
 * (SEGNN's N-body read-out, pos + model(graph)): translating x translates the result, and
 * rotating x and δ together rotates it.
 */
export function displace(n: number): Para {
  checkPoints('displace', n);
  const self: Para = primitive({
    kind: 'displace',
    args: [n],
    dom: [n, 6],
    cod: [n, 3],
    forward: (_theta, x, ctx) => {
      checkInput(self, x);
      const N = x.batch * n,
        X = x.data;
      const y = ctx.alloc([x.batch, n, 3], x.dtype, true);
      for (let v = 0; v < N; v++) for (let c = 0; c < 3; c++) y.data[v * 3 + c] = X[v * 6 + c]! + X[v * 6 + 3 + c]!;
      return {
        y,
        pullback: (dy, _dTheta, needDx = true) => {
          const dx = ctx.alloc(x.shape, x.dtype, true);
          if (needDx) for (let v = 0; v < N; v++) for (let c = 0; c < 3; c++) dx.data[v * 6 + c] = dx.data[v * 6 + 3 + c] = dy.data[v * 3 + c]!;
          else dx.data.fill(0);
          return dx;
        },
      };
    },
  });
  return self;
}
