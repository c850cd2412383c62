import type { Ctx } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import type { Tensor } from '../../tensor/tensor.js';
import { cutBefore } from './cell.js';
import type { Cell, CellRun } from './cell.js';
import {
  batchMajor,
  checkActivations,
  checkSequence,
  checkState,
  inputProjection,
  inputPullback,
  joinState,
  loadState,
  outputGradient,
  recurrentPullback,
  step,
  summedBias,
  timeMajor,
} from './frame.js';
import { checkSizes, gatedParams } from './gated.js';

/**
 * rnn_cell(in,h): Elman's recurrent cell with tanh (nn.RNNCell: weight_ih [h, in], weight_hh
 * [h, h], bias_ih, bias_hh): h′ = tanh(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh), state and output h.
 */
export function rnnCell(inDim: number, h: number, suffix = ''): Cell {
  checkSizes('rnn', inDim, h);
  const where = `rnn_cell(${inDim},${h})`;
  return {
    kind: 'rnn_cell',
    args: [inDim, h],
    input: inDim,
    state: h,
    output: h,
    params: gatedParams(inDim, h, 1, suffix),
    run: (theta, x, s0, ctx, bptt) => rnnRun(where, inDim, h, theta, x, s0, ctx, bptt),
    toString: () => where,
  };
}

function rnnRun(where: string, A: number, H: number, theta: readonly Tensor[], x: Tensor, s0: Tensor | undefined, ctx: Ctx, bptt?: number): CellRun {
  checkSequence(where, x, A);
  const B = x.batch,
    T = x.shape[1]!,
    dt = x.dtype,
    be = backend();
  if (s0) checkState(where, s0, B, H);
  checkActivations(where, B, T, 2 * A + 4 * H);
  const [Wih, Whh, bih, bhh] = theta as [Tensor, Tensor, Tensor, Tensor];
  const XT = timeMajor(x, ctx);
  const Z = inputProjection(XT, Wih, summedBias(bih, bhh, ctx), H, ctx);
  const Hs = ctx.alloc([T + 1, B, H], dt, true).data;
  loadState(s0, B, H, [Hs]);
  for (let t = 0; t < T; t++) {
    const z = step(Z.data, t, B, H);
    be.gemm(false, true, B, H, H, step(Hs, t, B, H), Whh.data, z, true);
    be.unary('tanh', z, step(Hs, t + 1, B, H));
  }
  return {
    y: batchMajor(Hs.subarray(B * H), T, B, H, dt, ctx),
    s: joinState([step(Hs, T, B, H)], B, H, dt, ctx),
    pullback: (dy, ds, dTheta, needDx = true) => {
      const dYT = outputGradient(dy, ctx);
      const dh = ctx.alloc([B, H], dt).data;
      if (ds) dh.set(ds.data);
      const dZ = ctx.alloc([T, B, H], dt, true);
      for (let t = T - 1; t >= 0; t--) {
        if (dYT) be.axpy(1, step(dYT.data, t, B, H), dh);
        const dz = step(dZ.data, t, B, H);
        be.unaryBackward('tanh', step(Z.data, t, B, H), step(Hs, t + 1, B, H), dh, dz, false);
        be.gemm(false, false, B, H, H, dz, Whh.data, dh, false);
        if (cutBefore(t, bptt)) dh.fill(0);
      }
      if (dTheta) recurrentPullback(dZ.data, Hs, T * B, H, H, dTheta[1]!.data, dTheta[3]!.data);
      const dx = inputPullback(dZ, XT, Wih, dTheta?.[0], dTheta?.[2], needDx, ctx);
      return { dx, ds0: joinState([dh], B, H, dt, ctx) };
    },
  };
}
