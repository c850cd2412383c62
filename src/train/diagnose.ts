import type { Loss } from '../nn/loss.js';
import { makeCtx } from '../para/para.js';
import type { Ctx, Para } from '../para/para.js';
import { Rng } from '../random/rng.js';
import { backend } from '../tensor/registry.js';
import type { Tensor } from '../tensor/tensor.js';

const finite = (t: Tensor): boolean => backend().allFinite(t.data);

/** True when every entry of every tensor is finite. */
export function allFinite(ts: readonly Tensor[]): boolean {
  return ts.every(finite);
}

/**
 * Finds where a training step first produced a non-finite number: replays the step one
 * factor of the composite at a time (forward in order, pullbacks in reverse) and names the
 * first factor whose output, or whose pullback's dx or dθ, is not finite.
 */
export function diagnoseNonFinite(model: Para, theta: readonly Tensor[], x: Tensor, target: Tensor, loss: Loss, rngState: number[]): string {
  const parts = model.kind === 'seq' ? model.children : [model];
  const ctx: Ctx = makeCtx({ training: true, rng: new Rng(rngState) });
  const lenses = [];
  let y = x;
  let off = 0;
  const slices: Tensor[][] = [];
  for (let i = 0; i < parts.length; i++) {
    const n = parts[i]!.params.length;
    slices.push(theta.slice(off, off + n) as Tensor[]);
    off += n;
    if (!allFinite(slices[i]!)) return `the parameters of ${parts[i]} (factor ${i + 1} of ${parts.length}) are not finite`;
    const lens = parts[i]!.forward(slices[i]!, y, ctx);
    if (!finite(lens.y)) return `the forward of ${parts[i]} (factor ${i + 1} of ${parts.length}) produced a non-finite value`;
    lenses.push(lens);
    y = lens.y;
  }
  const L = loss.apply(y, target);
  if (!Number.isFinite(L.value)) return `the loss ${loss.name} is ${L.value} on finite predictions`;
  let d = L.pullback();
  if (!finite(d)) return `the pullback of the loss ${loss.name} is not finite`;
  for (let i = parts.length - 1; i >= 0; i--) {
    const dTheta = slices[i]!.map((t) => ctx.alloc(t.shape, t.dtype));
    d = lenses[i]!.pullback(d, dTheta);
    if (!finite(d) || !allFinite(dTheta)) return `the pullback of ${parts[i]} (factor ${i + 1} of ${parts.length}) produced a non-finite gradient`;
  }
  return 'no non-finite value on replay';
}
