import { Rng } from '../../random/rng.js';
import type { Loss } from '../../nn/loss.js';
import { mse } from '../../nn/loss.js';
import { optimizer } from '../../optim/by-name.js';
import { makeCtx } from '../../para/para.js';
import { Arena } from '../../tensor/memory.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { NonFiniteError } from '../../errors.js';

/**
 * A FitNets hint (Romero et al. 2015, §2.2): the student's hidden features h_S, sent
 * through the learned component η of a natural transformation, should match the teacher's
 * hidden features h_T: β·‖η(h_S(x)) − h_T(x)‖² (mean over elements). The student is split
 * into body >> head at the hidden layer; η's parameters are trained with the student's.
 */
export interface Hint {
  readonly body: Para;
  readonly head: Para;
  readonly eta: Para;
  readonly etaTheta: Tensor[];
  /** h_T on the training rows, [N, p_T]. */
  readonly teacherHidden: Tensor;
  readonly beta: number;
}

export interface FitOptions {
  epochs: number;
  lr: number;
  batch: number;
  seed: number;
  hint?: Hint;
  /** Told after each epoch (for a progress line). */
  onEpoch?: (epoch: number) => void;
}

function gather(t: Tensor, rows: Int32Array, start: number, B: number, out: Tensor): Tensor {
  const per = t.size / t.batch;
  for (let i = 0; i < B; i++) out.data.set(t.data.subarray(rows[start + i]! * per, (rows[start + i]! + 1) * per), i * per);
  return out;
}

/**
 * Minibatch Adam on θ (updated in place) for a loss lens whose target may be wider than
 * the model's output (e.g. the distillation target). With a hint, the gradient of the
 * hint term is pulled back through η and added to the gradient at the student's hidden layer.
 */
export function fitWithLoss(model: Para, theta: Tensor[], x: Tensor, target: Tensor, loss: Loss, opts: FitOptions): number {
  const N = x.batch;
  const rng = new Rng(opts.seed);
  const order = Int32Array.from({ length: N }, (_, i) => i);
  const hint = opts.hint;
  const all = hint ? [...theta, ...hint.etaTheta] : theta;
  const grads = all.map((t) => Tensor.zeros(t.shape, t.dtype));
  const opt = optimizer('adam', { lr: opts.lr });
  const arena = new Arena();
  const ctx = makeCtx({ training: true, rng, alloc: arena.alloc });
  const nb = hint ? hint.body.params.length : 0;
  let last = NaN;
  for (let e = 0; e < opts.epochs; e++) {
    rng.shuffle(order);
    let sum = 0;
    for (let s = 0; s < N; s += opts.batch) {
      const B = Math.min(opts.batch, N - s);
      arena.reset();
      const xb = gather(x, order, s, B, ctx.alloc([B, ...x.shape.slice(1)], x.dtype));
      const tb = gather(target, order, s, B, ctx.alloc([B, ...target.shape.slice(1)], target.dtype));
      for (const g of grads) g.data.fill(0);
      let value: number;
      if (!hint) {
        const lens = model.forward(theta, xb, ctx);
        const L = loss.apply(lens.y, tb, ctx);
        value = L.value;
        lens.pullback(L.pullback(), grads, false);
      } else {
        const body = hint.body.forward(theta.slice(0, nb), xb, ctx);
        const head = hint.head.forward(theta.slice(nb), body.y, ctx);
        const L = loss.apply(head.y, tb, ctx);
        const dh = head.pullback(L.pullback(), grads.slice(nb, theta.length));
        const hb = gather(hint.teacherHidden, order, s, B, ctx.alloc([B, ...hint.teacherHidden.shape.slice(1)], hint.teacherHidden.dtype));
        const eta = hint.eta.forward(hint.etaTheta, body.y, ctx);
        const H = mse.apply(eta.y, hb, ctx);
        const dh2 = eta.pullback(H.pullback(hint.beta), grads.slice(theta.length));
        for (let i = 0; i < dh.size; i++) dh.data[i]! += dh2.data[i]!;
        body.pullback(dh, grads.slice(0, nb), false);
        value = L.value + hint.beta * H.value;
      }
      if (!Number.isFinite(value)) throw new NonFiniteError(`the loss became ${value} at epoch ${e + 1}`, e + 1, 0);
      opt.step(all, grads);
      sum += value * B;
    }
    last = sum / N;
    opts.onEpoch?.(e + 1);
  }
  return last;
}
