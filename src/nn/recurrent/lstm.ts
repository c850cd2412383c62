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
 * lstm_cell(in,h): the LSTM cell (Hochreiter & Schmidhuber 1997, with the forget gate), state
 * s = (h, c) ∈ ℝ²ʰ, output h, in PyTorch's layout (nn.LSTMCell: gates i, f, g, o stacked in
 * weight_ih [4h, in], weight_hh [4h, h], bias_ih, bias_hh):
 *   (i, f, g, o) = (σ, σ, tanh, σ)(x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh)
 *   c′ = f ⊙ c + i ⊙ g,   h′ = o ⊙ tanh(c′).
 * Over a sequence the input projections of all steps are one product; each step adds its
 * h·W_hhᵀ into its block of them (one product over the state) and runs the gate math in one
 * pass (Backend.lstmCell); the pullback mirrors it, and the weight gradients of every step are
 * one product each at the end.
 */
export function lstmCell(inDim: number, h: number, suffix = ''): Cell {
  checkSizes('lstm', inDim, h);
  const where = `lstm_cell(${inDim},${h})`;
  return {
    kind: 'lstm_cell',
    args: [inDim, h],
    input: inDim,
    state: 2 * h,
    output: h,
    params: gatedParams(inDim, h, 4, suffix),
    run: (theta, x, s0, ctx, bptt) => lstmRun(where, inDim, h, theta, x, s0, ctx, bptt),
    toString: () => where,
  };
}

function lstmRun(where: string, A: number, H: number, theta: readonly Tensor[], x: Tensor, s0: Tensor | undefined, ctx: Ctx, bptt?: number): CellRun {
  checkSequence(where, x, A);
  const B = x.batch,
    T = x.shape[1]!,
    G = 4 * H,
    dt = x.dtype,
    be = backend();
  if (s0) checkState(where, s0, B, 2 * H);
  // kept for the pullback: XT, Z (gates), Hs, Cs; made by it: dZ and the state gradients
  checkActivations(where, B, T, 2 * A + 2 * G + 2 * H);
  const [Wih, Whh, bih, bhh] = theta as [Tensor, Tensor, Tensor, Tensor];
  const XT = timeMajor(x, ctx);
  const Z = inputProjection(XT, Wih, summedBias(bih, bhh, ctx), G, ctx);
  const Hs = ctx.alloc([T + 1, B, H], dt, true).data,
    Cs = ctx.alloc([T + 1, B, H], dt, true).data;
  loadState(s0, B, H, [Hs, Cs]);
  for (let t = 0; t < T; t++) {
    const z = step(Z.data, t, B, G);
    be.gemm(false, true, B, G, H, step(Hs, t, B, H), Whh.data, z, true);
    be.lstmCell(B, H, z, step(Cs, t, B, H), step(Cs, t + 1, B, H), step(Hs, t + 1, B, H));
  }
  return {
    y: batchMajor(Hs.subarray(B * H), T, B, H, dt, ctx),
    s: joinState([step(Hs, T, B, H), step(Cs, T, B, H)], B, H, dt, ctx),
    pullback: (dy, ds, dTheta, needDx = true) => {
      const dYT = outputGradient(dy, ctx);
      const dh = ctx.alloc([B, H], dt).data,
        dc = ctx.alloc([B, H], dt).data;
      if (ds) loadState(ds, B, H, [dh, dc]);
      const dZ = ctx.alloc([T, B, G], dt, true);
      for (let t = T - 1; t >= 0; t--) {
        if (dYT) be.axpy(1, step(dYT.data, t, B, H), dh);
        const dz = step(dZ.data, t, B, G);
        be.lstmCellBackward(B, H, step(Z.data, t, B, G), step(Cs, t, B, H), step(Cs, t + 1, B, H), dh, dc, dz);
        // h entered the step through the gates only: dh_prev = dz·W_hh
        be.gemm(false, false, B, H, G, dz, Whh.data, dh, false);
        if (cutBefore(t, bptt)) {
          dh.fill(0);
          dc.fill(0);
        }
      }
      if (dTheta) recurrentPullback(dZ.data, Hs, T * B, G, H, dTheta[1]!.data, dTheta[3]!.data);
      const dx = inputPullback(dZ, XT, Wih, dTheta?.[0], dTheta?.[2], needDx, ctx);
      return { dx, ds0: joinState([dh, dc], B, H, dt, ctx) };
    },
  };
}
