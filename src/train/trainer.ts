import { NonFiniteError, RangeArgError, ShapeError } from '../errors.js';
import { Rng } from '../random/rng.js';
import { makeCtx } from '../para/para.js';
import { Arena, residentCopies, residentData } from '../tensor/memory.js';
import type { Para } from '../para/para.js';
import { optimizer as makeOptimizer } from '../optim/by-name.js';
import { checkFiniteValues } from '../optim/optimizer.js';
import type { Optimizer, OptimizerOptions, OptimizerState } from '../optim/optimizer.js';
import { Tensor, shapeString } from '../tensor/tensor.js';
import type { Dataset } from '../data/dataset.js';
import { fuseActivations } from '../nn/fuse.js';
import { lossForData } from '../nn/loss.js';
import type { Loss } from '../nn/loss.js';
import { readsLogits } from '../nn/link.js';
import { accuracy, predictClasses } from './metrics.js';
import { checkFinite } from '../data/dataset.js';
import { allFinite, diagnoseNonFinite } from './diagnose.js';
import { checkClip, clipByNorm } from '../optim/clip.js';
import { checkBptt, hasRecurrentLayers, withRegime } from '../nn/recurrent/index.js';
import type { StateCarry } from '../nn/recurrent/index.js';

export interface TrainOptions {
  /** Default: the one that fits the data (lossForData): softmax cross-entropy for several classes, bce for one output, mse for regression. */
  loss?: Loss;
  /** An optimiser, or its name with `lr` (and OptimizerOptions). */
  optimizer?: Optimizer | string;
  lr?: number;
  optimizerOptions?: Omit<OptimizerOptions, 'lr'>;
  /** Minibatch size; `1` is per-sample SGD as in seed 000; default: the whole set. */
  batch?: number;
  seed?: number;
  /** Shuffle the rows every epoch (seeded). Default true. */
  shuffle?: boolean;
  /** Initial parameters (default: the model's initialisers with `seed`). */
  theta?: Tensor[];
  /** Clip the gradient to this global norm before each update (PyTorch's clip_grad_norm_; `--clip X`). */
  clip?: number;
  /** Truncate the pullbacks of the model's recurrent layers every K steps (`--bptt K`; src/nn/recurrent/regime.ts). */
  bptt?: number;
}

/**
 * Everything the next epoch depends on besides the model and the data: what a checkpoint
 * holds (src/train/checkpoint.ts). Restoring it and running on gives the same bits as
 * never having stopped.
 */
export interface TrainerSnapshot {
  /** Epochs and optimiser steps completed. */
  epoch: number;
  step: number;
  theta: Tensor[];
  optimizer: OptimizerState;
  /** The generator's state (`Rng.state()`). */
  rng: number[];
  /** The row order: each epoch shuffles the previous epoch's permutation in place. */
  order: Int32Array;
}

export interface EpochStats {
  epoch: number;
  /** Mean minibatch loss over the epoch. */
  loss: number;
  /** Training accuracy over the epoch's minibatches (classification only). */
  accuracy?: number;
}

/**
 * Training as iterating the update endomorphism: each step runs the model's lens on a
 * minibatch, pulls the loss gradient back through it into preallocated gradient buffers,
 * and applies the optimiser's update u: θ ↦ θ′. Memory is reused across steps (an arena),
 * so a step allocates nothing once warm.
 */
export class Trainer {
  model: Para;
  /** `model` as each step runs it: its `layer >> activation` pairs fused (nn/fuse.ts), the same lens in fewer passes. */
  readonly fused: Para;
  readonly theta: Tensor[];
  readonly grads: Tensor[];
  readonly optimizer: Optimizer;
  readonly loss: Loss;
  rng: Rng;
  epoch = 0;
  step = 0;
  private readonly arena = new Arena();
  /** Minibatch size, whether rows are shuffled every epoch, and the row order (read by DeviceTrainer). */
  readonly batch: number;
  readonly shuffle: boolean;
  readonly order: Int32Array;
  private readonly logits: boolean;
  /** TrainOptions.clip and .bptt. */
  readonly clip: number | undefined;
  readonly bptt: number | undefined;

  constructor(
    model: Para,
    readonly data: Dataset,
    opts: TrainOptions,
  ) {
    const N = data.x.batch;
    if (N === 0) throw new RangeArgError(`${data.name}: no training rows`);
    checkFinite(data);
    this.model = model.dom ? model : model.at(data.x.shape.slice(1));
    const dom = this.model.dom!;
    if (shapeString(dom) !== shapeString(data.x.shape.slice(1))) {
      throw new ShapeError(`${this.model} expects inputs [*,${dom.join(',')}] but ${data.name} has inputs ${shapeString(data.x.shape)}`);
    }
    this.loss = opts.loss ?? lossForData(data);
    const cod = this.model.cod;
    const want = cod && (this.loss.targetShape ? this.loss.targetShape(cod) : cod);
    if (want && want.reduce((a, b) => a * b, 1) !== data.y.size / N) {
      throw new ShapeError(
        `${this.model} outputs [*,${cod!.join(',')}] but ${data.name} has targets ${shapeString(data.y.shape)}${want !== cod ? ` (${this.loss.name} needs [*,${want.join(',')}])` : ''}`,
      );
    }
    const seed = opts.seed ?? 0;
    this.rng = new Rng(seed);
    // parameters the trainer makes, and the gradients, live where the backend computes (no
    // copies per call); parameters passed in are trained in place where they are
    this.theta = opts.theta ?? residentCopies(this.model.init(this.rng.split()));
    this.grads = this.theta.map((t) => new Tensor(residentData(t.dtype, t.size), t.shape));
    this.logits = readsLogits(this.loss.link);
    const batch = opts.batch ?? N;
    if (!(Number.isInteger(batch) && batch > 0)) throw new RangeArgError(`batch size must be a positive integer, got ${batch}`);
    this.batch = Math.min(batch, N);
    this.shuffle = opts.shuffle ?? true;
    if (opts.clip !== undefined) checkClip(opts.clip);
    this.clip = opts.clip;
    if (opts.bptt !== undefined) {
      checkBptt(opts.bptt);
      if (!hasRecurrentLayers(this.model))
        throw new RangeArgError(`--bptt ${opts.bptt} truncates recurrent layers (rnn, lstm, gru, mgu, scan, …), but ${this.model} has none`);
    }
    this.bptt = opts.bptt;
    this.order = Int32Array.from({ length: N }, (_, i) => i);
    this.optimizer =
      typeof opts.optimizer === 'object' ? opts.optimizer : makeOptimizer(opts.optimizer ?? 'sgd', { lr: opts.lr ?? 0.1, ...opts.optimizerOptions });
    // optimisers that need to see the model (natural gradient, K-FAC) attach to it here
    if (this.optimizer.prepare) this.model = this.optimizer.prepare(this.model, data.x, this.theta, this.loss);
    this.fused = fuseActivations(this.model);
  }

  /** Optimiser steps in one full epoch. */
  get stepsPerEpoch(): number {
    return Math.ceil(this.data.x.batch / this.batch);
  }

  /**
   * One pass over the data in minibatches (`onBatch` after each step, with the rows done so
   * far) — cut short once `stepLimit` optimiser steps have been taken in all; its statistics
   * then cover the rows it saw. Throws NonFiniteError when the loss turns NaN or infinite.
   */
  runEpoch(onBatch?: (rows: number) => void, stepLimit = Infinity): EpochStats {
    const { data, order, batch } = this;
    const N = data.x.batch;
    if (this.shuffle) this.rng.shuffle(order);
    const xPer = data.x.size / N,
      yPer = data.y.size / N;
    let lossSum = 0,
      correct = 0,
      rows = 0;
    for (let start = 0; start < N && this.step < stepLimit; start += batch) {
      const B = Math.min(batch, N - start);
      rows += B;
      const { loss, y } = this.stepOn(B, (xb, yb) => {
        for (let i = 0; i < B; i++) {
          const r = order[start + i]!;
          xb.data.set(data.x.data.subarray(r * xPer, (r + 1) * xPer), i * xPer);
          yb.data.set(data.y.data.subarray(r * yPer, (r + 1) * yPer), i * yPer);
        }
      });
      lossSum += loss * B;
      if (data.labels) {
        const p = predictClasses(y, this.logits);
        for (let i = 0; i < B; i++) if (p[i] === data.labels[order[start + i]!]) correct++;
      }
      onBatch?.(start + B);
    }
    // a last step that overflowed the parameters shows only in the next forward: catch it here,
    // so that no checkpoint or saved model holds them
    if (!allFinite(this.theta)) {
      throw new NonFiniteError(
        `the parameters became non-finite in epoch ${this.epoch + 1} (by step ${this.step}): the updates overflow; lower the learning rate`,
        this.epoch + 1,
        this.step,
      );
    }
    this.epoch++;
    return { epoch: this.epoch, loss: lossSum / rows, accuracy: data.labels ? correct / rows : undefined };
  }

  /**
   * One optimiser step on a minibatch of B rows that `fill` writes into xb and yb (shaped
   * like the data's rows; their memory is reused across steps). Returns the minibatch loss and
   * the model's output (valid until the next step). Throws NonFiniteError when the loss or a
   * gradient turns NaN or infinite. With `carry`, the recurrent layers start from the states
   * it holds and leave their final states there (consecutive windows of text).
   */
  stepOn(B: number, fill: (xb: Tensor, yb: Tensor) => void, carry?: StateCarry): { loss: number; y: Tensor } {
    const { data } = this;
    this.arena.reset();
    const plain = makeCtx({ training: true, rng: this.rng, alloc: this.arena.alloc });
    const ctx = carry || this.bptt !== undefined ? withRegime(plain, { bptt: this.bptt, carry }) : plain;
    // both written in full by fill
    const xb = ctx.alloc([B, ...data.x.shape.slice(1)], data.x.dtype, true);
    const yb = ctx.alloc([B, ...data.y.shape.slice(1)], data.y.dtype, true);
    fill(xb, yb);
    const rngState = this.rng.state();
    const lens = this.fused.forward(this.theta, xb, ctx);
    const L = this.loss.apply(lens.y, yb, ctx);
    for (const g of this.grads) g.data.fill(0);
    if (Number.isFinite(L.value)) lens.pullback(L.pullback(), this.grads, false);
    if (!Number.isFinite(L.value) || !allFinite(this.grads)) {
      const where = diagnoseNonFinite(this.model, this.theta, xb, yb, this.loss, rngState);
      const what = Number.isFinite(L.value) ? 'a gradient became non-finite' : `the loss became ${L.value}`;
      throw new NonFiniteError(`${what} at epoch ${this.epoch + 1}, step ${this.step + 1}: ${where}`, this.epoch + 1, this.step + 1);
    }
    if (this.clip !== undefined) clipByNorm(this.grads, this.clip);
    this.optimizer.step(this.theta, this.grads);
    this.step++;
    return { loss: L.value, y: lens.y };
  }

  /** A deep copy of the training state after the last completed epoch (for checkpoints). */
  snapshot(): TrainerSnapshot {
    return {
      epoch: this.epoch,
      step: this.step,
      theta: this.theta.map((t) => t.clone()),
      optimizer: this.optimizer.state(),
      rng: this.rng.state().map((w) => w >>> 0),
      order: Int32Array.from(this.order),
    };
  }

  /**
   * Puts this trainer in the state of a snapshot taken from a trainer of the same model
   * and data; checks every shape first, so a mismatched snapshot changes nothing.
   */
  restore(s: TrainerSnapshot): void {
    if (s.theta.length !== this.theta.length)
      throw new ShapeError(`checkpoint has ${s.theta.length} parameter tensors but ${this.model} has ${this.theta.length}`);
    s.theta.forEach((t, i) => {
      if (shapeString(t.shape) !== shapeString(this.theta[i]!.shape)) {
        throw new ShapeError(`checkpoint parameter ${i} has shape ${shapeString(t.shape)} but ${this.model} expects ${shapeString(this.theta[i]!.shape)}`);
      }
      checkFiniteValues(t, `checkpoint parameter ${i}`);
    });
    const N = this.order.length;
    if (s.order.length !== N || !isPermutation(s.order)) throw new ShapeError(`checkpoint row order is not a permutation of the ${N} training rows`);
    if (s.rng.length !== 4 || !s.rng.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32))
      throw new RangeArgError(`checkpoint RNG state must be 4 unsigned 32-bit words, got [${s.rng.join(',')}]`);
    if (s.rng.every((w) => w === 0))
      throw new RangeArgError('checkpoint RNG state is all zero, which xoshiro128** never reaches (the file was not written by a run)');
    if (!(Number.isSafeInteger(s.epoch) && s.epoch >= 0 && Number.isSafeInteger(s.step) && s.step >= 0))
      throw new RangeArgError(`checkpoint epoch and step must be non-negative integers, got ${s.epoch} and ${s.step}`);
    if (s.optimizer.name !== this.optimizer.name)
      throw new RangeArgError(`checkpoint optimiser is ${s.optimizer.name} but this trainer uses ${this.optimizer.name}`);
    if (!(Number.isSafeInteger(s.optimizer.t) && s.optimizer.t >= 0))
      throw new RangeArgError(`checkpoint optimiser step count must be a non-negative integer, got ${s.optimizer.t}`);
    // one optimiser step per training step
    if (s.optimizer.t !== s.step) throw new RangeArgError(`checkpoint optimiser has taken ${s.optimizer.t} steps but the run ${s.step}`);
    this.optimizer.checkState(s.optimizer, this.theta);
    s.theta.forEach((t, i) => this.theta[i]!.data.set(t.data));
    this.optimizer.loadState(s.optimizer);
    this.rng = new Rng(s.rng);
    this.order.set(s.order);
    this.epoch = s.epoch;
    this.step = s.step;
  }

  /** Loss and accuracy of the current parameters on a data set (evaluation mode). */
  evaluate(ds: Dataset): { loss: number; accuracy?: number } {
    return evaluate(this.fused, this.theta, ds, this.loss);
  }
}

function isPermutation(p: Int32Array): boolean {
  const seen = new Uint8Array(p.length);
  for (const i of p) {
    if (!(i >= 0 && i < p.length) || seen[i]) return false;
    seen[i] = 1;
  }
  return true;
}

/** Loss (mean) and accuracy of a model on a data set, in evaluation mode, in chunks of 1024 rows. */
export function evaluate(model: Para, theta: readonly Tensor[], ds: Dataset, loss: Loss): { loss: number; accuracy?: number } {
  const N = ds.x.batch;
  let lossSum = 0,
    correct = 0;
  for (let s = 0; s < N; s += 1024) {
    const e = Math.min(N, s + 1024);
    const y = model.run(theta, ds.x.rows(s, e));
    lossSum += loss.apply(y, ds.y.rows(s, e)).value * (e - s);
    if (ds.labels) correct += accuracy(y, ds.labels.subarray(s, e), readsLogits(loss.link)) * (e - s);
  }
  return { loss: lossSum / N, accuracy: ds.labels ? correct / N : undefined };
}

/** Runs a model on all rows of x (evaluation mode), in chunks. */
export function predict(model: Para, theta: readonly Tensor[], x: Tensor): Tensor {
  if (x.batch <= 1024) return model.run(theta, x);
  const parts: Tensor[] = [];
  for (let s = 0; s < x.batch; s += 1024) parts.push(model.run(theta, x.rows(s, Math.min(x.batch, s + 1024))));
  const per = parts[0]!.size / parts[0]!.batch;
  const out = Tensor.zeros([x.batch, ...parts[0]!.shape.slice(1)], parts[0]!.dtype);
  let off = 0;
  for (const p of parts) {
    out.data.set(p.data, off);
    off += p.batch * per;
  }
  return out;
}
