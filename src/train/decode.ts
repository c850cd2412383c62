import { Primitive, Seq } from '../para/composite.js';
import { Defined } from '../para/definition.js';
import type { Ctx, Para } from '../para/para.js';
import { addTensors, Reparam, Residual } from '../para/structure.js';
import { shapesMatch } from '../tensor/tensor.js';
import type { Shape, Tensor } from '../tensor/tensor.js';
import { recurrentInfo, scanStepper } from '../nn/recurrent/index.js';
import { attentionStepper } from './attention-cache.js';

/**
 * A morphism on sequences run a stretch of positions at a time (autoregressive decoding):
 * `step(x)` takes the next L ≥ 1 positions [B, L, …] and returns the outputs at them — the
 * same rows a forward over every position stepped so far would give, for a causal morphism.
 * Layers that look back along the sequence (attention) keep what they need (a key/value
 * cache) inside, so each step costs what the new positions cost, not a full pass.
 */
export interface Stepper {
  step(x: Tensor): Tensor;
}

/**
 * The layers that decode by a rule of their own, by kind. Every other layer decodes only if it
 * acts on each position separately (PrimitiveDef.positionwise), by running on each new stretch.
 */
const STEPPERS: ReadonlyMap<string, (f: Para, theta: readonly Tensor[], ctx: Ctx) => Stepper | undefined> = new Map([
  ['attention', attentionStepper],
  ...['rnn', 'lstm', 'gru', 'mgu', 'scan'].map((kind) => [kind, recurrentStepper] as const),
]);

/** A recurrent layer over every position (a scan) decodes as its cell's Mealy machine: the state carried, one cell step per position. */
function recurrentStepper(f: Para, theta: readonly Tensor[], ctx: Ctx): Stepper | undefined {
  const info = recurrentInfo(f);
  return info?.role === 'scan' ? scanStepper(info.cell, theta, ctx) : undefined;
}

/**
 * A fresh Stepper of f at θ (evaluation mode), or undefined when f cannot be run position by
 * position (it is not causal, or not made of layers that know how):
 *   f₁ >> … >> fₙ       steps its factors in turn
 *   residual(f)          f's step plus its input
 *   reparam(f, r)        f's stepper at r(θ)
 *   a definition         its expansion's (transformer(…))
 *   a layer in STEPPERS  its own rule (attention: a key/value cache; a recurrent scan: its state)
 *   a positionwise layer the layer itself on each new stretch (dense, norms, activations, embedding, id)
 */
export function stepper(f: Para, theta: readonly Tensor[], ctx: Ctx): Stepper | undefined {
  if (f instanceof Seq) {
    let at = 0;
    const steppers = f.children.map((c) => stepper(c, theta.slice(at, (at += c.params.length)), ctx));
    if (steppers.some((s) => !s)) return undefined;
    return { step: (x) => steppers.reduce((y, s) => s!.step(y), x) };
  }
  if (f instanceof Residual) {
    const inner = stepper(f.f, theta, ctx);
    return inner && { step: (x) => addTensors(x, inner.step(x), ctx) };
  }
  if (f instanceof Reparam) return stepper(f.f, f.r.map(theta, ctx).p, ctx);
  if (f instanceof Defined) return stepper(f.body, theta, ctx);
  const rule = STEPPERS.get(f.kind);
  if (rule) return rule(f, theta, ctx);
  if (!(f instanceof Primitive && f.def.positionwise)) return undefined;
  // the same layer on this stretch's shape (a different length than the one it was fixed to)
  const { at } = f.def;
  const on = (s: Shape): Para => (at && !(f.dom && shapesMatch(f.dom, s)) ? at(s) : f);
  return { step: (x) => on(x.shape.slice(1)).forward(theta, x, ctx).y };
}
