import { RangeArgError, ShapeError } from '../errors.js';
import type { PrimitiveDef } from '../para/composite.js';
import { checkInput, describeShape } from '../para/para.js';
import type { Ctx, Lens, Para, ParamSpec } from '../para/para.js';
import type { SwapOp } from '../tensor/backend.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { convLens, windowUnfolding } from './conv-lens.js';
import type { Unfolding } from './conv-lens.js';
import { makeWindow } from './im2col.js';
import type { Window } from './im2col.js';
import { FusableLayer } from './fuse.js';
import type { FusableOp } from './fuse.js';
import { torchDefaultUniform } from './initializers.js';

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
  const geometryOf = (d: Shape): ConvGeometry => {
    const w = windowOf(d);
    return windowGeometry(w, [outC, w.Ho, w.Wo]);
  };
  const fixed = dom && geometryOf(dom);
  const lens = convForwards(() => self, fixed, geometryOf, outC);
  const self: Para = new FusableLayer(
    {
      kind: 'conv2d',
      args: [inC, outC, k, stride, pad],
      dom,
      cod: fixed?.cod,
      params: convParams(outC, [inC, k, k], inC * k * k),
      at: (d) => conv2d(inC, outC, k, stride, pad, d),
      forward: lens.forward,
    },
    lens.withActivation,
  );
  return self;
}

/** What a convolution's forward needs to know of its input: the unfolding it reads, and its per-sample output shape. */
export interface ConvGeometry {
  readonly unfolding: Unfolding;
  readonly cod: Shape;
}

/**
 * The forward of a convolution layer, alone and followed by an activation in one pass (`withActivation`,
 * for ./fuse.ts): its geometry is `fixed` when its domain is fixed, else geometryOf(the
 * input's per-sample shape).
 */
export function convForwards(
  self: () => Para,
  fixed: ConvGeometry | undefined,
  geometryOf: (d: Shape) => ConvGeometry,
  outC: number,
): { forward: PrimitiveDef['forward']; withActivation: (act: FusableOp) => PrimitiveDef['forward'] } {
  const conv = (W: Tensor, b: Tensor, x: Tensor, ctx: Ctx, act: SwapOp): Lens => {
    if (fixed) checkInput(self(), x);
    const { unfolding, cod } = fixed ?? geometryOf(x.shape.slice(1));
    return convLens(unfolding, outC, W, b, x, ctx, cod, act);
  };
  return {
    forward: ([W, b], x, ctx) => conv(W!, b!, x, ctx, 'identity'),
    withActivation:
      (act) =>
      ([W, b], x, ctx) =>
        conv(W!, b!, x, ctx, act),
  };
}

/** The geometry of a sliding-window convolution: its window g, and cod its per-sample output shape. */
export function windowGeometry(g: Window, cod: Shape): ConvGeometry {
  return { unfolding: windowUnfolding(g), cod };
}
