import { RangeArgError, ShapeError } from '../errors.js';
import { primitive } from '../para/category.js';
import type { PrimitiveDef } from '../para/category.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Ctx, Lens, Para, ParamSpec } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { SwapOp } from '../tensor/backend.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { throughActivation } from './activation.js';
import { makeWindow } from './im2col.js';
import type { Window } from './im2col.js';
import { torchDefaultUniform } from './init.js';

/** Column-matrix elements per batch chunk: bounds the gemm operands (8 MB in float32). */
const CHUNK = 1 << 21;

/**
 * The lens of a convolution with weight [O, C·kh·kw] (any trailing kernel layout flattened)
 * and bias [O] over a batch x [B, C, H, W] (or [B, C, L]) with window geometry `g`:
 *
 *   forward   col = im2col(x_b),  y_b = W·col + b            (one gemm per batch chunk)
 *   pullback  dW += dy_b·colᵀ,  db += Σ_p dy_b,  dx_b = col2im(Wᵀ·dy_b)
 *
 * Samples of a chunk sit side by side in the columns, so one gemm covers the chunk.
 */
export function convLens(g: Window, outC: number, W: Tensor, bias: Tensor, x: Tensor, ctx: Ctx, cod: Shape, act: SwapOp = 'identity'): Lens {
  const be = backend();
  const B = x.batch, O = outC, P = g.Ho * g.Wo, K = g.C * g.kh * g.kw, S = g.C * g.H * g.W;
  const nb = Math.max(1, Math.min(B, Math.floor(CHUNK / (K * P))));
  // every buffer below but dx is written in full before it is read (`overwrite`)
  const y = ctx.alloc([B, ...cod], x.dtype, true);
  const cols: Tensor[] = [];
  const out = ctx.alloc([O, nb * P], x.dtype, true).data;
  for (let b0 = 0; b0 < B; b0 += nb) {
    const n = Math.min(nb, B - b0), ld = n * P;
    const col = ctx.alloc([K, ld], x.dtype, true);
    be.im2col(g, x.data, b0 * S, n, col.data, ld);
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
        const b0 = c * nb, n = Math.min(nb, B - b0), ld = n * P;
        const d = dyc.subarray(0, O * ld);
        be.swapAxes(dy.data.subarray(b0 * O * P, (b0 + n) * O * P), n, O, P, d);
        if (dTheta && ones) {
          be.gemm(false, true, O, K, ld, d, col.data, dTheta[0]!.data, true);
          be.gemm(false, false, O, 1, ld, d, ones.subarray(0, ld), dTheta[1]!.data, true); // db += Σ_p dy
        }
        if (dcol) {
          be.gemm(true, false, K, ld, O, W.data, d, dcol, false);
          be.col2im(g, dcol, ld, n, dx.data, b0 * S);
        }
      });
      return dx;
    },
  };
}

/** Checks a positive-integer layer argument. */
export function requirePositive(where: string, name: string, v: number, min = 1): void {
  if (!(Number.isInteger(v) && v >= min)) throw new RangeArgError(`${where}: ${name} must be an integer ≥ ${min}, got ${v}`);
}

/** The shared argument checks of conv1d and conv2d: positive sizes, non-negative padding. */
export function checkConvArgs(where: string, inC: number, outC: number, k: number, stride: number, pad: number): void {
  requirePositive(where, 'in channels', inC);
  requirePositive(where, 'out channels', outC);
  requirePositive(where, 'kernel size', k);
  requirePositive(where, 'stride', stride);
  requirePositive(where, 'padding', pad, 0);
}

/** PyTorch's default initialisation for Conv and Linear: weight and bias U(−1/√fanIn, 1/√fanIn). */
export function convParams(outC: number, kernelShape: Shape, fanIn: number): ParamSpec[] {
  return [
    { name: 'weight', shape: [outC, ...kernelShape], init: torchDefaultUniform(fanIn) },
    { name: 'bias', shape: [outC], init: torchDefaultUniform(fanIn) },
  ];
}

/** The input's per-sample shape, checked to be [inC, …] of the given rank. */
export function checkChannels(where: string, dom: Shape, rank: number, inC: number, layout: string): void {
  if (dom.length !== rank) throw new ShapeError(`${where} expects ${layout} per sample but got ${describeShape(dom)}`);
  if (dom[0] !== inC) throw new ShapeError(`${where} expects ${inC} input channels but got ${dom[0]} (input ${describeShape(dom)})`);
}

/**
 * conv2d(inC,outC,k[,stride[,pad]]): 2-d cross-correlation [inC,H,W] → [outC,H′,W′],
 * H′ = ⌊(H + 2·pad − k)/stride⌋ + 1, with weight [outC,inC,k,k] and bias [outC]
 * (PyTorch's Conv2d layout and default init). `args` are always all five, [inC,outC,k,stride,pad]. Shape-polymorphic in H, W: its domain is
 * fixed when composed (`at`). Implemented as im2col + one gemm per batch chunk; the
 * pullback folds Wᵀ·dy back with col2im.
 */
export function conv2d(inC: number, outC: number, k: number, stride = 1, pad = 0, dom?: Shape): Para {
  const where = `conv2d(${inC},${outC},${k},${stride},${pad})`;
  checkConvArgs(where, inC, outC, k, stride, pad);
  const windowOf = (d: Shape): Window => {
    checkChannels(where, d, 3, inC, '[C,H,W]');
    return makeWindow(where, inC, d[1]!, d[2]!, k, k, stride, stride, pad, pad);
  };
  const g = dom && windowOf(dom);
  const codOf = (w: Window): Shape => [outC, w.Ho, w.Wo];
  const self: Para = primitive({
    kind: 'conv2d',
    kernelsOnly: true,
    args: [inC, outC, k, stride, pad],
    dom,
    cod: g && codOf(g),
    params: convParams(outC, [inC, k, k], inC * k * k),
    at: (d) => conv2d(inC, outC, k, stride, pad, d),
    ...convForwards(() => self, g, windowOf, outC, codOf),
  });
  return self;
}

/**
 * The forward of a convolution layer, alone and fused with an activation (forwardThen):
 * its window is g when its domain is fixed, else windowOf(the input's per-sample shape);
 * codOf gives its per-sample output shape.
 */
export function convForwards(self: () => Para, g: Window | undefined, windowOf: (d: Shape) => Window, outC: number, codOf: (w: Window) => Shape): Pick<PrimitiveDef, 'forward' | 'forwardThen'> {
  const conv = (W: Tensor, b: Tensor, x: Tensor, ctx: Ctx, act: SwapOp): Lens => {
    if (g) checkInput(self(), x);
    const gx = g ?? windowOf(x.shape.slice(1));
    return convLens(gx, outC, W, b, x, ctx, codOf(gx), act);
  };
  return {
    forward: ([W, b], x, ctx) => conv(W!, b!, x, ctx, 'identity'),
    forwardThen: ([W, b], x, ctx, act) => conv(W!, b!, x, ctx, act),
  };
}
