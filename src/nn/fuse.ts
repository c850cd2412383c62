import { Par, Primitive, Seq } from '../para/composite.js';
import type { PrimitiveDef } from '../para/composite.js';
import { Defined } from '../para/definition.js';
import type { Ctx, Lens, Para } from '../para/para.js';
import { Residual } from '../para/structure.js';
import type { SwapOp } from '../tensor/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { Elementwise } from './activation.js';
import { MapSet } from './colimit/map.js';

/**
 * Activation fusion, a rewrite of composites: `layer >> act`, where the layer's kernel can apply
 * the activation as it writes its output (dense, the convolutions: a bias + activation epilogue),
 * becomes one lens — one pass over the output fewer, no buffer for the pre-activation. The
 * activations are those whose derivative can be read off the output (relu′ = [y > 0],
 * σ′ = y(1−y), tanh′ = 1−y², exp′ = y). The fused lens is the composite's, bit for bit (y, dx
 * and dθ: test/nn/fuse.test.ts), so the rewrite changes how fast a model runs, never what it
 * computes; the Trainer applies it where training starts (Trainer.fused).
 */

/** An activation a layer may apply in its own pass. */
export type FusableOp = Exclude<SwapOp, 'identity'>;
const FUSABLE: ReadonlySet<string> = new Set<FusableOp>(['relu', 'sigmoid', 'tanh', 'exp']);

type Forward = PrimitiveDef['forward'];

/** A layer whose kernel can apply an activation as it writes its output: `withActivation(act)` is the forward of `this >> act` in one pass. */
export class FusableLayer extends Primitive {
  constructor(
    def: PrimitiveDef,
    readonly withActivation: (act: FusableOp) => Forward,
  ) {
    super(def);
  }
}

/**
 * The composite f >> act run by one lens: it is that composite (its factors, parameters, shapes
 * and spec string) with `forward` for its lens. Inside a larger composite it prints bracketed,
 * `(dense(2,4) >> relu) >> dense(4,1)`, which parses back to the same morphism.
 */
export class Fused extends Seq {
  constructor(
    factors: readonly [Para, Para],
    private readonly lens: Forward,
  ) {
    super(factors);
  }
  override forward(theta: readonly Tensor[], x: Tensor, ctx: Ctx): Lens {
    return this.lens(theta, x, ctx);
  }
}

/** f >> g as one lens, when f applies the activation g in its own pass; undefined otherwise. */
function fusedPair(f: Para, g: Para): Para | undefined {
  if (!(f instanceof FusableLayer && g instanceof Elementwise && FUSABLE.has(g.op))) return undefined;
  return new Fused([f, g], f.withActivation(g.op as FusableOp));
}

/**
 * f with every `layer >> activation` pair of its composites fused: through >>, @, residual,
 * map and the definitions (transformer(…)). Other wrappers (reparam, tied, K-FAC's
 * instrumented layers) are run as they are. Equal to f as a lens; its parameters are f's, in
 * the same order.
 */
export function fuseActivations(f: Para): Para {
  if (f instanceof Fused) return f;
  if (f instanceof Seq) {
    const parts: Para[] = [];
    for (const c of f.children.map(fuseActivations)) {
      const pair = parts.length ? fusedPair(parts[parts.length - 1]!, c) : undefined;
      if (pair) parts[parts.length - 1] = pair;
      else parts.push(c);
    }
    if (unchanged(parts, f.children)) return f;
    return parts.length === 1 ? parts[0]! : new Seq(parts);
  }
  if (f instanceof Par) {
    const parts = f.children.map(fuseActivations);
    return unchanged(parts, f.children) ? f : new Par(parts);
  }
  if (f instanceof Residual || f instanceof MapSet || f instanceof Defined) {
    const inner = f instanceof Defined ? f.body : f.f;
    const g = fuseActivations(inner);
    if (g === inner) return f;
    return f instanceof Residual ? new Residual(g) : f instanceof MapSet ? new MapSet(g, f.n, f.masked) : f.over(g);
  }
  return f;
}

const unchanged = (a: readonly Para[], b: readonly Para[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);
