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
  timeMajor,
} from './frame.js';
import { checkSizes, gatedParams } from './gated.js';

/**
 * gru_cell(in,h): the gated recurrent unit (Cho et al. 2014) in PyTorch's form and layout
 * (nn.GRUCell: gates r, z, n stacked in weight_ih [3h, in], weight_hh [3h, h], bias_ih, bias_hh):
 *   r = σ(x·W_irᵀ + b_ir + h·W_hrᵀ + b_hr),   z = σ(x·W_izᵀ + b_iz + h·W_hzᵀ + b_hz)
 *   n = tanh(x·W_inᵀ + b_in + r ⊙ (h·W_hnᵀ + b_hn)),   h′ = (1 − z) ⊙ n + z ⊙ h.
 * The reset gate multiplies the state's projection only, so the input and state products stay
 * apart: all input products before the steps; then every step — its state product and the gate
 * math in one pass — in one backend call (Backend.gruSequence: the wasm backend packs W_hh once
 * for all steps and shares the batch's rows between its threads), and the pullback likewise
 * (Backend.gruSequenceBackward, truncated at the --bptt cuts of cutBefore in ./cell.ts).
 */
export function gruCell(inDim: number, h: number, suffix = ''): Cell {
  checkSizes('gru', inDim, h);
  const where = `gru_cell(${inDim},${h})`;
  return {
    kind: 'gru_cell',
    args: [inDim, h],
    input: inDim,
    state: h,
    output: h,
    params: gatedParams(inDim, h, 3, suffix),
    run: (theta, x, s0, ctx, bptt) => gruRun(where, inDim, h, theta, x, s0, ctx, bptt),
    toString: () => where,
  };
}

function gruRun(where: string, A: number, H: number, theta: readonly Tensor[], x: Tensor, s0: Tensor | undefined, ctx: Ctx, bptt?: number): CellRun {
  checkSequence(where, x, A);
  const B = x.batch,
    T = x.shape[1]!,
    G = 3 * H,
    dt = x.dtype,
    be = backend();
  if (s0) checkState(where, s0, B, H);
  checkActivations(where, B, T, 2 * A + 4 * G + H);
  const [Wih, Whh, bih, bhh] = theta as [Tensor, Tensor, Tensor, Tensor];
  const XT = timeMajor(x, ctx);
  const XG = inputProjection(XT, Wih, bih.data, G, ctx);
  const HG = ctx.alloc([T, B, G], dt, true).data;
  const Hs = ctx.alloc([T + 1, B, H], dt, true).data;
  loadState(s0, B, H, [Hs]);
  be.gruSequence(B, H, T, Whh.data, bhh.data, XG.data, HG, Hs);
  return {
    y: batchMajor(Hs.subarray(B * H), T, B, H, dt, ctx),
    s: joinState([step(Hs, T, B, H)], B, H, dt, ctx),
    pullback: (dy, ds, dTheta, needDx = true) => {
      const dYT = outputGradient(dy, ctx);
      const dh = ctx.alloc([B, H], dt).data;
      if (ds) dh.set(ds.data);
      const dXG = ctx.alloc([T, B, G], dt, true),
        dHG = ctx.alloc([T, B, G], dt, true).data;
      be.gruSequenceBackward(B, H, T, Whh.data, XG.data, HG, Hs, dYT?.data ?? null, dh, dXG.data, dHG, bptt);
      if (dTheta) recurrentPullback(dHG, Hs, T * B, G, H, dTheta[1]!.data, dTheta[3]!.data);
      const dx = inputPullback(dXG, XT, Wih, dTheta?.[0], dTheta?.[2], needDx, ctx);
      return { dx, ds0: joinState([dh], B, H, dt, ctx) };
    },
  };
}
