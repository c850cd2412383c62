import { Primitive } from '../para/composite.js';
import type { PrimitiveDef } from '../para/composite.js';
import type { Ctx, Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import type { SwapOp, UnaryOp } from '../tensor/backend.js';
import type { Shape, Tensor } from '../tensor/tensor.js';

/** The spec arguments of a shape-preserving layer: its size, when given explicitly for a vector. */
export const sizeArgs = (dom: Shape | undefined, inferred: boolean): number[] => (dom && !inferred && dom.length === 1 ? [dom[0]!] : []);

/** An elementwise map as a morphism; `op` names its kernel (the fusion rewrite, ./fuse.ts, reads it). */
export class Elementwise extends Primitive {
  constructor(
    readonly op: Exclude<UnaryOp, 'identity'>,
    def: PrimitiveDef,
  ) {
    super(def);
  }
}

/**
 * An elementwise morphism A → A for a kernel-known function f: forward y = f(x),
 * pullback dx = dy ⊙ f′(x). Takes any shape until composed. A size given explicitly
 * (`sigmoid(3)`) is part of its spec; a size inferred by composition is not.
 */
export function elementwise(op: Exclude<UnaryOp, 'identity'>, dom?: Shape, inferred = false): Para {
  return new Elementwise(op, {
    kind: op,
    args: sizeArgs(dom, inferred),
    dom,
    cod: dom,
    positionwise: true,
    at: (d) => elementwise(op, d, true),
    forward: (_t, x, ctx) => {
      const y = ctx.alloc(x.shape, x.dtype);
      backend().unary(op, x.data, y.data);
      return {
        y,
        pullback: (dy) => {
          const dx = ctx.alloc(x.shape, x.dtype);
          backend().unaryBackward(op, x.data, y.data, dy.data, dx.data, false);
          return dx;
        },
      };
    },
  });
}

/**
 * The gradient before a fused activation (./fuse.ts): dz = dy ⊙ act′, with
 * act′ read off the layer's output y — relu′(z) = [z > 0] = [y > 0], so y stands in for z,
 * and σ′, tanh′, exp′ read y anyway. dy itself when there is no activation.
 */
export function throughActivation(act: SwapOp, y: Tensor, dy: Tensor, ctx: Ctx): Tensor {
  if (act === 'identity') return dy;
  const dz = ctx.alloc(y.shape, y.dtype, true);
  backend().unaryBackward(act, y.data, y.data, dy.data, dz.data, false);
  return dz;
}

/** σ(x) = 1/(1+e^−x); seed 000's activation, and the characteristic map of Topos I. */
export const sigmoid = (): Para => elementwise('sigmoid');
export const tanh = (): Para => elementwise('tanh');
export const relu = (): Para => elementwise('relu');
/** GELU, tanh approximation (PyTorch `approximate='tanh'`). */
export const gelu = (): Para => elementwise('gelu');
export const softplus = (): Para => elementwise('softplus');
