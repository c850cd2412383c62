import { RangeArgError, ShapeError, UnknownNameError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import { shapeString, Tensor } from '../tensor/tensor.js';
import type { Schedule } from './schedule.js';
import { residentCopies, zerosBeside } from '../tensor/memory.js';
import type { Para } from '../para/para.js';
import type { Loss } from '../nn/loss.js';

/**
 * An optimiser is a lens on parameter space: given (θ, dθ) its update is an endomorphism
 * u: θ ↦ θ′ of the parameter object (seed 000: "SGD as an endomorphism"), carrying its own
 * state (velocities, moments). `step` applies u in place; `state`/`loadState` let a
 * checkpoint save and restore everything the next step depends on.
 */
export interface Optimizer {
  readonly name: string;
  /** Number of steps taken so far. */
  readonly t: number;
  /** Set when `step` touches θ, dθ and its state only through Backend kernels (so it runs on a device). */
  readonly kernelsOnly?: boolean;
  /** Applies one update θ ← u(θ, dθ) in place. */
  step(theta: readonly Tensor[], grads: readonly Tensor[]): void;
  /** The learning rate the next step will use. */
  lr(): number;
  /**
   * For optimisers that need the model itself (natural gradient: its Fisher; K-FAC: its
   * layers' Kronecker factors): called once by the Trainer with the model and the training
   * inputs, parameters and loss (natural gradient reads the output distribution off the loss);
   * returns the model to train (the same function, possibly instrumented).
   */
  prepare?(model: Para, x: Tensor, theta: readonly Tensor[], loss?: Loss): Para;
  state(): OptimizerState;
  loadState(s: OptimizerState): void;
  /**
   * Checks that a saved state fits this optimiser and the parameters θ it will update — its
   * slots, their shapes, their values — before `loadState` (a checkpoint is validated like a
   * model file). Throws a typed error naming the slot and the parameter.
   */
  checkState(s: OptimizerState, theta: readonly Tensor[]): void;
}

export interface OptimizerState {
  name: string;
  t: number;
  /** Per-parameter state tensors, by slot name (e.g. 'm', 'v'). */
  slots: Record<string, Tensor[]>;
}

export interface OptimizerOptions {
  lr: number;
  momentum?: number;
  beta1?: number;
  beta2?: number;
  eps?: number;
  weightDecay?: number;
  schedule?: Schedule;
}

/** Throws a RangeArgError unless every value of `t` is finite, naming `what` and the first that is not. */
export function checkFiniteValues(t: Tensor, what: string): void {
  const d = t.data;
  for (let i = 0; i < d.length; i++) if (!Number.isFinite(d[i]!)) throw new RangeArgError(`${what} holds ${d[i]} at index ${i}`);
}

/**
 * Checks the slots of a saved state: none (a state before the first step), or exactly `names`,
 * each one finite tensor per parameter, shaped like it.
 */
export function checkSlots(s: OptimizerState, theta: readonly Tensor[], names: readonly string[]): void {
  const have = Object.keys(s.slots).sort();
  if (have.length === 0 && (s.t === 0 || names.length === 0)) return;
  if (have.join(',') !== [...names].sort().join(','))
    throw new RangeArgError(`optimiser state has slots ${have.join(', ') || 'none'}; ${s.name} keeps ${names.join(', ') || 'none'}`);
  for (const n of names) {
    const ts = s.slots[n]!;
    if (ts.length !== theta.length) throw new RangeArgError(`optimiser slot '${n}' holds ${ts.length} tensors; the model has ${theta.length} parameters`);
    ts.forEach((t, i) => {
      if (shapeString(t.shape) !== shapeString(theta[i]!.shape))
        throw new ShapeError(`optimiser slot '${n}' ${i} has shape ${shapeString(t.shape)} but parameter ${i} has ${shapeString(theta[i]!.shape)}`);
      checkFiniteValues(t, `optimiser slot '${n}' ${i}`);
    });
  }
}

/** Throws a RangeArgError unless lr is a positive finite number. */
export function checkLr(lr: number): void {
  if (!(lr > 0) || !Number.isFinite(lr)) throw new RangeArgError(`learning rate must be a positive number, got ${lr}`);
}

/** The learning rate at step t: the schedule's, or the constant one. */
export function scheduledLr(opts: Pick<OptimizerOptions, 'lr' | 'schedule'>, t: number): number {
  return opts.schedule ? opts.schedule(t, opts.lr) : opts.lr;
}

/** Base class: step counting, schedules and slot bookkeeping; subclasses define `update`. */
export abstract class BaseOptimizer implements Optimizer {
  abstract readonly name: string;
  t = 0;
  protected slots: Record<string, Tensor[]> = {};
  constructor(
    protected readonly opts: OptimizerOptions,
    private readonly slotNames: readonly string[],
  ) {
    checkLr(opts.lr);
  }
  lr(): number {
    return scheduledLr(this.opts, this.t);
  }
  step(theta: readonly Tensor[], grads: readonly Tensor[]): void {
    if (this.slotNames.length && !this.slots[this.slotNames[0]!]) {
      // resident where the parameters are (the backend's memory, or a device): no copies per step
      for (const s of this.slotNames) this.slots[s] = theta.map(zerosBeside);
    }
    const lr = this.lr();
    this.t++;
    for (let i = 0; i < theta.length; i++) this.update(i, theta[i]!.data, grads[i]!.data, lr);
  }
  /** The update of parameter tensor i (θ and its gradient g, as flat arrays). */
  protected abstract update(i: number, theta: Float32Array | Float64Array, g: Float32Array | Float64Array, lr: number): void;
  protected slot(name: string, i: number): Float32Array | Float64Array {
    return this.slots[name]![i]!.data;
  }
  state(): OptimizerState {
    return { name: this.name, t: this.t, slots: Object.fromEntries(Object.entries(this.slots).map(([k, v]) => [k, v.map((x) => x.clone())])) };
  }
  loadState(s: OptimizerState): void {
    this.t = s.t;
    this.slots = Object.fromEntries(Object.entries(s.slots).map(([k, v]) => [k, residentCopies(v)]));
  }
  checkState(s: OptimizerState, theta: readonly Tensor[]): void {
    checkSlots(s, theta, this.slotNames);
  }
}

/** Plain gradient descent: θ ← θ − η·dθ. */
export class SGD extends BaseOptimizer {
  readonly name = 'sgd';
  readonly kernelsOnly = true;
  constructor(opts: OptimizerOptions) {
    super(opts, []);
  }
  protected update(_i: number, p: Float32Array | Float64Array, g: Float32Array | Float64Array, lr: number): void {
    backend().axpy(-lr, g, p);
  }
}

/**
 * Momentum in PyTorch's convention: v ← μv + dθ, then the heavy-ball step θ ← θ − ηv, or with
 * `nesterov` (the 'nesterov' optimiser) θ ← θ − η(dθ + μv), the step from the look-ahead
 * point (Sutskever et al. 2013, eq. 3–4, as PyTorch rewrites it).
 */
export class Momentum extends BaseOptimizer {
  readonly name: string;
  constructor(
    opts: OptimizerOptions,
    private readonly nesterov = false,
  ) {
    super(opts, ['v']);
    this.name = nesterov ? 'nesterov' : 'momentum';
  }
  protected update(i: number, p: Float32Array | Float64Array, g: Float32Array | Float64Array, lr: number): void {
    const v = this.slot('v', i),
      mu = this.opts.momentum ?? 0.9,
      nesterov = this.nesterov;
    for (let j = 0; j < p.length; j++) {
      v[j] = mu * v[j]! + g[j]!;
      p[j]! -= lr * (nesterov ? g[j]! + mu * v[j]! : v[j]!);
    }
  }
}

/**
 * Adam (Kingma & Ba 2015) with bias correction; with `decoupled` it is AdamW
 * (Loshchilov & Hutter 2019): θ ← θ − η·λ·θ before the Adam step. Matches PyTorch.
 */
export class Adam extends BaseOptimizer {
  readonly name: string;
  readonly kernelsOnly = true;
  constructor(
    opts: OptimizerOptions,
    private readonly decoupled = false,
  ) {
    super(opts, ['m', 'v']);
    this.name = decoupled ? 'adamw' : 'adam';
  }
  protected update(i: number, p: Float32Array | Float64Array, g: Float32Array | Float64Array, lr: number): void {
    const m = this.slot('m', i),
      v = this.slot('v', i);
    const b1 = this.opts.beta1 ?? 0.9,
      b2 = this.opts.beta2 ?? 0.999,
      eps = this.opts.eps ?? 1e-8;
    const wd = this.opts.weightDecay ?? (this.decoupled ? 0.01 : 0);
    const c1 = 1 - Math.pow(b1, this.t),
      c2 = 1 - Math.pow(b2, this.t);
    // θ −= η·(m/c1)/(√(v/c2) + ε), written as PyTorch does: η·√c2/c1 · m/(√v + ε·√c2);
    // AdamW shrinks θ by 1 − ηλ first, Adam adds λθ to the gradient
    backend().adam(p, g, m, v, {
      b1,
      b2,
      step: (lr * Math.sqrt(c2)) / c1,
      epsHat: eps * Math.sqrt(c2),
      l2: this.decoupled ? 0 : wd,
      shrink: this.decoupled && wd ? 1 - lr * wd : 1,
    });
  }
  override checkState(s: OptimizerState, theta: readonly Tensor[]): void {
    super.checkState(s, theta);
    // v is an average of squares: a negative entry would make √v NaN
    (s.slots.v ?? []).forEach((t, i) => {
      const j = t.data.findIndex((x) => x < 0);
      if (j >= 0) throw new RangeArgError(`Adam's second moment v ${i} is negative (${t.data[j]} at index ${j})`);
    });
  }
}
