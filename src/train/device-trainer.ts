import { DeviceSupportError, NonFiniteError } from '../errors.js';
import type { Dataset } from '../data/dataset.js';
import { readsLogits } from '../nn/link.js';
import type { LossKind, DeviceMemory } from '../tensor/backend.js';
import { makeCtx } from '../para/para.js';
import { hostOnlyParts } from '../tensor/device-layers.js';
import { Arena, zerosBeside } from '../tensor/memory.js';
import type { Ctx, Para } from '../para/para.js';
import { backend } from '../tensor/registry.js';
import { Tensor } from '../tensor/tensor.js';
import type { Data } from '../tensor/tensor.js';
import type { Trainer } from './trainer.js';
import type { EpochStats } from './trainer.js';

/** Steps queued ahead of the device: enough to keep it busy, few enough to bound the uploads waiting in its queue. */
export const IN_FLIGHT = 3;
/** Rows per chunk when evaluating. */
const EVAL_ROWS = 1024;

/**
 * Training resident on a device (Backend.device, the webgpu backend): parameters, gradients,
 * optimiser state and activations live on the device for the whole run; each step uploads its
 * minibatch and queues forward, loss, pullback and update without waiting. What comes back,
 * once per epoch and asynchronously, is only what the statistics need: each step's loss, a
 * finiteness flag per step, and the predicted class of each row. The host-side state (model,
 * row order, generator, optimiser settings, checks of the setup) is an ordinary Trainer's.
 *
 * A model with a layer that computes on host arrays (hostOnlyParts, tensor/device-layers.ts), a loss without a kernel
 * or an optimiser whose step loops on the host is refused with a DeviceSupportError naming it,
 * before anything is allocated on the device.
 */
export class DeviceTrainer {
  readonly host: Trainer;
  /** The parameters, on the device. */
  readonly theta: Tensor[];
  private readonly grads: Tensor[];
  private readonly arena: Arena;
  private readonly lossKind: LossKind;
  private readonly threshold: number;
  private stage = new Float32Array(0);
  /** Host minibatches for stepOn's `fill`. */
  private readonly hostArena = new Arena();

  /** Takes over `host`'s run: its parameters (as they are now) go to the device. */
  constructor(
    host: Trainer,
    private readonly device: DeviceMemory,
  ) {
    const name = backend().name;
    const hostOnly = hostOnlyParts(host.model);
    if (hostOnly.length)
      throw new DeviceSupportError(
        `${name} has no device path for ${hostOnly.join(', ')} (in ${host.model}): it computes on host arrays; train this model with --backend wasm`,
      );
    if (!host.loss.kernel)
      throw new DeviceSupportError(
        `${name} has no device path for the loss ${host.loss.name}; use mse, bce, softmax-cross-entropy or token-cross-entropy, or --backend wasm`,
      );
    if (host.clip !== undefined) throw new DeviceSupportError(`${name} has no device path for gradient clipping (--clip); train with --backend wasm`);
    if (!host.optimizer.kernelsOnly)
      throw new DeviceSupportError(`${name} has no device path for the optimiser ${host.optimizer.name}; use sgd, adam or adamw, or --backend wasm`);
    this.host = host;
    this.lossKind = host.loss.kernel;
    this.threshold = readsLogits(host.loss.link) ? 0 : 0.5;
    this.arena = new Arena(device);
    this.theta = host.theta.map((t) => this.upload(t.data, t.shape));
    this.grads = this.theta.map(zerosBeside);
  }

  get model(): Para {
    return this.host.model;
  }
  get epoch(): number {
    return this.host.epoch;
  }

  private upload(src: Data, shape: readonly number[]): Tensor {
    const d = this.device.alloc(src.length);
    this.device.write(d, src);
    return new Tensor(d, shape);
  }

  /** Rows order[start … start+B) of src, gathered on the host and queued into a device tensor. */
  private rowsOf(src: Tensor, order: Int32Array | undefined, start: number, B: number, ctx: Ctx): Tensor {
    const per = src.size / src.batch;
    if (this.stage.length < B * per) this.stage = new Float32Array(B * per);
    for (let i = 0; i < B; i++) {
      const r = order ? order[start + i]! : start + i;
      this.stage.set(src.data.subarray(r * per, (r + 1) * per), i * per);
    }
    return this.toDevice(this.stage.subarray(0, B * per), [B, ...src.shape.slice(1)], ctx);
  }

  /** Host values queued into a device tensor of the arena. */
  private toDevice(src: Data, shape: readonly number[], ctx: Ctx): Tensor {
    const t = ctx.alloc(shape, 'float32', true);
    this.device.write(t.data as Float32Array, src);
    return t;
  }

  /**
   * Queues the loss gradient of predictions y against targets t, the batch's loss into
   * lossOut[0], and the predicted classes into classesOut. The loss's rows are the samples, or
   * for token-cross-entropy every position (its targets: one id per position).
   */
  private lossOf(y: Tensor, t: Tensor, ctx: Ctx, lossOut: Float32Array, classesOut: Float32Array | undefined): Tensor {
    const be = backend(),
      B = y.batch,
      C = this.lossKind === 'token-cross-entropy' ? y.shape[y.rank - 1]! : y.size / B,
      rows = y.size / C;
    const dy = ctx.alloc(y.shape, 'float32', true),
      rowLoss = ctx.alloc([rows], 'float32', true);
    be.lossGrad(this.lossKind, y.data, t.data, rows, C, dy.data, rowLoss.data);
    be.sumRows(rowLoss.data, rows, 1, lossOut, false);
    if (classesOut) be.argmaxRows(y.data, B, C, this.threshold, classesOut);
    return dy;
  }

  /** Queues one optimiser step on the device minibatch xb, yb: forward, loss, pullback, the gradients' finiteness into finiteOut[0], update. */
  private queueStep(xb: Tensor, yb: Tensor, ctx: Ctx, lossOut: Float32Array, finiteOut: Float32Array, classesOut?: Float32Array): void {
    const be = backend(),
      t = this.host;
    const lens = t.fused.forward(this.theta, xb, ctx);
    const dy = this.lossOf(lens.y, yb, ctx, lossOut, classesOut);
    for (const g of this.grads) be.fill(g.data, 0);
    lens.pullback(dy, this.grads, false);
    for (const g of this.grads) this.device.markNonFinite(g.data as Float32Array, finiteOut);
    t.optimizer.step(this.theta, this.grads);
  }

  /**
   * One optimiser step on a minibatch of B rows that `fill` writes into host tensors xb and yb
   * (as Trainer.stepOn), queued without waiting; resolves to the minibatch loss once the
   * device has run it (the loss and a finiteness flag are all that come back), or rejects
   * with a NonFiniteError. Steps run in the order they are queued.
   */
  stepOn(B: number, fill: (xb: Tensor, yb: Tensor) => void): Promise<number> {
    const t = this.host,
      { x, y } = t.data,
      be = backend();
    this.arena.reset();
    this.hostArena.reset();
    const xs = this.hostArena.alloc([B, ...x.shape.slice(1)], 'float32', true),
      ys = this.hostArena.alloc([B, ...y.shape.slice(1)], 'float32', true);
    fill(xs, ys);
    const ctx = makeCtx({ training: true, rng: t.rng, alloc: this.arena.alloc });
    const out = ctx.alloc([2], 'float32', true).data as Float32Array;
    be.fill(out.subarray(1, 2), 1);
    this.queueStep(this.toDevice(xs.data, xs.shape, ctx), this.toDevice(ys.data, ys.shape, ctx), ctx, out.subarray(0, 1), out.subarray(1, 2));
    const epoch = t.epoch + 1,
      step = ++t.step;
    // the read is queued now, before the next step reuses the arena
    return this.device.read(out).then(([loss, flag]) => {
      if (Number.isFinite(loss!) && flag === 1) return loss!;
      const what = Number.isFinite(loss!) ? 'a gradient became non-finite' : `the loss became ${loss}`;
      throw new NonFiniteError(`${what} at step ${step} (on ${be.name}; train with --backend wasm to find the morphism that produced it)`, epoch, step);
    });
  }

  /**
   * One pass over the data in minibatches (as Trainer.runEpoch; `onBatch(rows)` after each step
   * is queued); throws NonFiniteError naming the first step whose loss or gradient was not finite.
   */
  async runEpoch(onBatch?: (rows: number) => void, stepLimit = Infinity): Promise<EpochStats> {
    const t = this.host,
      { data, order, batch } = t,
      dev = this.device,
      be = backend();
    const N = data.x.batch,
      steps = Math.min(Math.ceil(N / batch), stepLimit - t.step),
      seen = Math.min(N, steps * batch);
    if (t.shuffle) t.rng.shuffle(order);
    const stepLoss = dev.alloc(steps),
      finite = dev.alloc(steps),
      classes = data.labels ? dev.alloc(seen) : undefined;
    be.fill(finite, 1);
    const ctx = makeCtx({ training: true, rng: t.rng, alloc: this.arena.alloc });
    const pending: Promise<void>[] = [];
    for (let s = 0; s < steps; s++) {
      const start = s * batch,
        B = Math.min(batch, N - start);
      this.arena.reset();
      const xb = this.rowsOf(data.x, order, start, B, ctx),
        yb = this.rowsOf(data.y, order, start, B, ctx);
      this.queueStep(xb, yb, ctx, stepLoss.subarray(s, s + 1), finite.subarray(s, s + 1), classes?.subarray(start, start + B));
      pending.push(dev.done());
      if (pending.length > IN_FLIGHT) await pending.shift();
      onBatch?.(start + B);
    }
    const [losses, flags, predicted] = await Promise.all([dev.read(stepLoss), dev.read(finite), classes && dev.read(classes)]);
    let lossSum = 0;
    for (let s = 0; s < steps; s++) {
      if (!Number.isFinite(losses[s]!) || flags[s] !== 1) {
        const what = Number.isFinite(losses[s]!) ? 'a gradient became non-finite' : `the loss became ${losses[s]}`;
        throw new NonFiniteError(
          `${what} at epoch ${t.epoch + 1}, step ${t.step + s + 1} (on ${be.name}; train with --backend wasm to find the morphism that produced it)`,
          t.epoch + 1,
          t.step + s + 1,
        );
      }
      lossSum += losses[s]! * Math.min(batch, N - s * batch);
    }
    let correct = 0;
    if (predicted && data.labels) for (let i = 0; i < seen; i++) if (predicted[i] === data.labels[order[i]!]) correct++;
    t.step += steps;
    t.epoch++;
    return { epoch: t.epoch, loss: lossSum / seen, accuracy: data.labels ? correct / seen : undefined };
  }

  /** Optimiser steps in one full epoch. */
  get stepsPerEpoch(): number {
    return this.host.stepsPerEpoch;
  }

  /** Loss and accuracy of the current parameters on a data set (evaluation mode), computed on the device. */
  async evaluate(ds: Dataset): Promise<{ loss: number; accuracy?: number }> {
    const N = ds.x.batch,
      chunks = Math.ceil(N / EVAL_ROWS),
      dev = this.device;
    const arena = new Arena(dev),
      ctx = makeCtx({ alloc: arena.alloc });
    const losses = dev.alloc(chunks),
      classes = ds.labels ? dev.alloc(N) : undefined;
    for (let c = 0; c < chunks; c++) {
      const s = c * EVAL_ROWS,
        B = Math.min(EVAL_ROWS, N - s);
      arena.reset();
      const x = this.rowsOf(ds.x, undefined, s, B, ctx),
        y = this.rowsOf(ds.y, undefined, s, B, ctx);
      this.lossOf(this.host.fused.forward(this.theta, x, ctx).y, y, ctx, losses.subarray(c, c + 1), classes?.subarray(s, s + B));
    }
    const [l, predicted] = await Promise.all([dev.read(losses), classes && dev.read(classes)]);
    let lossSum = 0,
      correct = 0;
    for (let c = 0; c < chunks; c++) lossSum += l[c]! * Math.min(EVAL_ROWS, N - c * EVAL_ROWS);
    if (predicted && ds.labels) for (let i = 0; i < N; i++) if (predicted[i] === ds.labels[i]) correct++;
    return { loss: lossSum / N, accuracy: ds.labels ? correct / N : undefined };
  }

  /** The parameters brought back into the host Trainer's tensors (and returned). */
  async hostTheta(): Promise<Tensor[]> {
    const values = await Promise.all(this.theta.map((t) => this.device.read(t.data as Float32Array)));
    values.forEach((v, i) => this.host.theta[i]!.data.set(v));
    return this.host.theta;
  }
}
