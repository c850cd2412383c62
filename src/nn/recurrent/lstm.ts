import type { Ctx } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import type { Tensor } from '../../tensor/tensor.js';
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
 * Over a sequence the input projections of all steps are one product; then every step — its
 * h·W_hhᵀ added into its block of them, and the gate math in one pass — runs in one backend
 * call (Backend.lstmSequence: the wasm backend packs W_hh once for all steps and shares the
 * batch's rows between its threads); the pullback mirrors it (Backend.lstmSequenceBackward,
 * truncated at the --bptt cuts of cutBefore in ./cell.ts), and the weight gradients of every
 * step are one product each at the end.
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
  be.lstmSequence(B, H, T, Whh.data, Z.data, Hs, Cs);
  return {
    y: batchMajor(Hs.subarray(B * H), T, B, H, dt, ctx),
    s: joinState([step(Hs, T, B, H), step(Cs, T, B, H)], B, H, dt, ctx),
    pullback: (dy, ds, dTheta, needDx = true) => {
      const dYT = outputGradient(dy, ctx);
      const dh = ctx.alloc([B, H], dt).data,
        dc = ctx.alloc([B, H], dt).data;
      if (ds) loadState(ds, B, H, [dh, dc]);
      const dZ = ctx.alloc([T, B, G], dt, true);
      be.lstmSequenceBackward(B, H, T, Whh.data, Z.data, Cs, dYT?.data ?? null, dh, dc, dZ.data, bptt);
      if (dTheta) recurrentPullback(dZ.data, Hs, T * B, G, H, dTheta[1]!.data, dTheta[3]!.data);
      const dx = inputPullback(dZ, XT, Wih, dTheta?.[0], dTheta?.[2], needDx, ctx);
      return { dx, ds0: joinState([dh, dc], B, H, dt, ctx) };
    },
  };
}
