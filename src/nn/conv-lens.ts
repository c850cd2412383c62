import type { Ctx, Lens } from '../para/para.js';
import type { Backend, SwapOp } from '../tensor/backend.js';
import { backend } from '../tensor/registry.js';
import type { Data, Shape, Tensor } from '../tensor/tensor.js';
import type { Window } from '../tensor/window.js';
import { throughActivation } from './activation.js';

/** Column-matrix elements per batch chunk: bounds the gemm operands (8 MB in float32). */
const CHUNK = 1 << 21;

/**
 * What a convolution reads: each sample (S input elements) unfolded into K rows (input
 * channels × kernel taps) by P columns (output positions). `unfold` writes (with backend be) the columns
 * of `count` samples from x[xOff …] side by side into col (leading dimension ld: sample s fills
 * columns s·P …); `fold`, its adjoint, adds such columns back onto dx[xOff …]. A sliding
 * window with zero padding is one (windowUnfolding: the backend's im2col/col2im), the derived
 * neighbour map of a periodic grid another (src/nn/equivariant/conv.ts).
 */
export interface Unfolding {
  readonly K: number;
  readonly P: number;
  readonly S: number;
  unfold(be: Backend, x: Data, xOff: number, count: number, col: Data, ld: number): void;
  fold(be: Backend, col: Data, ld: number, count: number, dx: Data, xOff: number): void;
}

/** The unfolding of a sliding window g: the backend's im2col and col2im. */
export function windowUnfolding(g: Window): Unfolding {
  return {
    K: g.C * g.kh * g.kw,
    P: g.Ho * g.Wo,
    S: g.C * g.H * g.W,
    unfold: (be, x, xOff, count, col, ld) => be.im2col(g, x, xOff, count, col, ld),
    fold: (be, col, ld, count, dx, xOff) => be.col2im(g, col, ld, count, dx, xOff),
  };
}

/**
 * The lens of a convolution with weight [O, K] (any trailing kernel layout flattened) and
 * bias [O] over a batch x [B, …] that `u` unfolds:
 *
 *   forward   col = unfold(x_b),  y_b = W·col + b            (one gemm per batch chunk)
 *   pullback  dW += dy_b·colᵀ,  db += Σ_p dy_b,  dx_b = fold(Wᵀ·dy_b)
 *
 * Samples of a chunk sit side by side in the columns, so one gemm covers the chunk.
 */
export function convLens(u: Unfolding, outC: number, W: Tensor, bias: Tensor, x: Tensor, ctx: Ctx, cod: Shape, act: SwapOp = 'identity'): Lens {
  const be = backend();
  const B = x.batch,
    O = outC,
    { P, K, S } = u;
  const nb = Math.max(1, Math.min(B, Math.floor(CHUNK / (K * P))));
  // every buffer below but dx is written in full before it is read (`overwrite`)
  const y = ctx.alloc([B, ...cod], x.dtype, true);
  const cols: Tensor[] = [];
  const out = ctx.alloc([O, nb * P], x.dtype, true).data;
  for (let b0 = 0; b0 < B; b0 += nb) {
    const n = Math.min(nb, B - b0),
      ld = n * P;
    const col = ctx.alloc([K, ld], x.dtype, true);
    u.unfold(be, x.data, b0 * S, n, col.data, ld);
    cols.push(col);
    be.gemm(false, false, O, ld, K, W.data, col.data, out, false);
    // out is [O, n, P] (the samples side by side); y is [n, O, P], plus the bias, then act
    be.swapAxes(out.subarray(0, O * ld), O, n, P, y.data.subarray(b0 * O * P, (b0 + n) * O * P), bias.data, act);
  }
  return {
    y,
    pullback: (dyAct, dTheta, needDx = true) => {
      const dy = throughActivation(act, y, dyAct, ctx);
      const dx = ctx.alloc(x.shape, x.dtype);
      const dyc = ctx.alloc([O, nb * P], x.dtype, true).data;
      const dcol = needDx ? ctx.alloc([K, nb * P], x.dtype, true).data : undefined;
      const ones = dTheta ? ctx.alloc([nb * P], x.dtype, true).data : undefined;
      if (ones) be.fill(ones, 1);
      cols.forEach((col, c) => {
        const b0 = c * nb,
          n = Math.min(nb, B - b0),
          ld = n * P;
        const d = dyc.subarray(0, O * ld);
        be.swapAxes(dy.data.subarray(b0 * O * P, (b0 + n) * O * P), n, O, P, d);
        if (dTheta && ones) {
          be.gemm(false, true, O, K, ld, d, col.data, dTheta[0]!.data, true);
          be.gemm(false, false, O, 1, ld, d, ones.subarray(0, ld), dTheta[1]!.data, true); // db += Σ_p dy
        }
        if (dcol) {
          be.gemm(true, false, K, ld, O, W.data, d, dcol, false);
          u.fold(be, dcol, ld, n, dx.data, b0 * S);
        }
      });
      return dx;
    },
  };
}
