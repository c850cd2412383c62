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
  timeMajor,
} from './frame.js';
import { checkSizes, gatedParams } from './gated.js';

/**
 * mgu_cell(in,h): the minimal gated unit (Zhou, Wu, Zhang & Zhou, "Minimal gated unit for
 * recurrent neural networks", 2016), one gate f besides the candidate n, laid out like PyTorch's
 * cells (gates f, n stacked in weight_ih [2h, in], weight_hh [2h, h], bias_ih, bias_hh):
 *   f = σ(x·W_ifᵀ + b_if + h·W_hfᵀ + b_hf)
 *   n = tanh(x·W_inᵀ + b_in + (f ⊙ h)·W_hnᵀ + b_hn),   h′ = (1 − f) ⊙ h + f ⊙ n.
 * The candidate reads the gated state f ⊙ h, so a step takes two products over the state: one
 * for f, one for n.
 */
export function mguCell(inDim: number, h: number, suffix = ''): Cell {
  checkSizes('mgu', inDim, h);
  const where = `mgu_cell(${inDim},${h})`;
  return {
    kind: 'mgu_cell',
    args: [inDim, h],
    input: inDim,
    state: h,
    output: h,
    params: gatedParams(inDim, h, 2, suffix),
    run: (theta, x, s0, ctx, bptt) => mguRun(where, inDim, h, theta, x, s0, ctx, bptt),
    toString: () => where,
  };
}

function mguRun(where: string, A: number, H: number, theta: readonly Tensor[], x: Tensor, s0: Tensor | undefined, ctx: Ctx, bptt?: number): CellRun {
  checkSequence(where, x, A);
  const B = x.batch,
    T = x.shape[1]!,
    G = 2 * H,
    dt = x.dtype,
    be = backend();
  if (s0) checkState(where, s0, B, H);
  checkActivations(where, B, T, 2 * A + 2 * G + 6 * H);
  const [Wih, Whh, bih, bhh] = theta as [Tensor, Tensor, Tensor, Tensor];
  // the f rows and the n rows of W_hh and b_hh
  const Whf = Whh.data.subarray(0, H * H),
    Whn = Whh.data.subarray(H * H),
    bhf = bhh.data.subarray(0, H),
    bhn = bhh.data.subarray(H);
  const XT = timeMajor(x, ctx);
  const XG = inputProjection(XT, Wih, bih.data, G, ctx);
  const HF = ctx.alloc([T, B, H], dt, true).data,
    HN = ctx.alloc([T, B, H], dt, true).data,
    FH = ctx.alloc([T, B, H], dt, true).data;
  const Hs = ctx.alloc([T + 1, B, H], dt, true).data;
  loadState(s0, B, H, [Hs]);
  for (let t = 0; t < T; t++) {
    const h = step(Hs, t, B, H),
      xg = step(XG.data, t, B, G),
      fh = step(FH, t, B, H);
    be.gemm(false, true, B, H, H, h, Whf, step(HF, t, B, H), false, bhf);
    be.mguGate(B, H, xg, step(HF, t, B, H), h, fh);
    be.gemm(false, true, B, H, H, fh, Whn, step(HN, t, B, H), false, bhn);
    be.mguCell(B, H, xg, step(HN, t, B, H), h, step(Hs, t + 1, B, H));
  }
  return {
    y: batchMajor(Hs.subarray(B * H), T, B, H, dt, ctx),
    s: joinState([step(Hs, T, B, H)], B, H, dt, ctx),
    pullback: (dy, ds, dTheta, needDx = true) => {
      const dYT = outputGradient(dy, ctx);
      const dh = ctx.alloc([B, H], dt).data,
        dfh = ctx.alloc([B, H], dt, true).data;
      if (ds) dh.set(ds.data);
      const dXG = ctx.alloc([T, B, G], dt, true);
      const dHF = ctx.alloc([T, B, H], dt, true).data,
        dHN = ctx.alloc([T, B, H], dt, true).data;
      for (let t = T - 1; t >= 0; t--) {
        if (dYT) be.axpy(1, step(dYT.data, t, B, H), dh);
        const h = step(Hs, t, B, H),
          xg = step(XG.data, t, B, G),
          dxg = step(dXG.data, t, B, G),
          dhf = step(dHF, t, B, H),
          dhn = step(dHN, t, B, H);
        // dh becomes dh ⊙ (1 − f); the candidate's and the gate's paths through W_hh follow
        be.mguCellBackward(B, H, xg, h, dh, dxg, dh);
        be.copyRows(B, H, dxg.subarray(H), G, dhn, H);
        be.gemm(false, false, B, H, H, dhn, Whn, dfh, false);
        be.mguGateBackward(B, H, xg, h, dfh, dxg, dh);
        be.copyRows(B, H, dxg, G, dhf, H);
        be.gemm(false, false, B, H, H, dhf, Whf, dh, true);
        if (cutBefore(t, bptt)) dh.fill(0);
      }
      if (dTheta) {
        const dW = dTheta[1]!.data,
          db = dTheta[3]!.data;
        recurrentPullback(dHF, Hs, T * B, H, H, dW.subarray(0, H * H), db.subarray(0, H));
        recurrentPullback(dHN, FH, T * B, H, H, dW.subarray(H * H), db.subarray(H));
      }
      const dx = inputPullback(dXG, XT, Wih, dTheta?.[0], dTheta?.[2], needDx, ctx);
      return { dx, ds0: joinState([dh], B, H, dt, ctx) };
    },
  };
}
