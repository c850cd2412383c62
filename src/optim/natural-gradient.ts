import { RangeArgError } from '../errors.js';
import { primitive, seq, par } from '../para/category.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { Rng } from '../random/rng.js';
import { backend } from '../tensor/registry.js';
import { Tensor } from '../tensor/tensor.js';
import { dampedSolve } from '../linalg/cholesky.js';
import { checkFiniteValues, checkLr, checkSlots, scheduledLr } from './optimizer.js';
import type { Optimizer, OptimizerOptions, OptimizerState } from './optimizer.js';

/**
 * Natural gradient (Amari 1998) and K-FAC (Martens & Grosse 2015): updates that are
 * "cartesian" for the fibration π: parameters → functions of seed 001 — they move the
 * function, not the coordinates, so they commute with reparameterisations θ = Mφ.
 *
 * Δθ = −η (F + λI)⁻¹ ∇L, with F the Fisher information. For a Gaussian likelihood (MSE) the
 * Fisher is the Gauss–Newton matrix F = (1/N) Σ_i J_iᵀJ_i, J_i = ∂f(x_i)/∂θ.
 */

const flatten = (ts: readonly Tensor[]): Float64Array => {
  const out = new Float64Array(ts.reduce((n, t) => n + t.size, 0));
  let o = 0;
  for (const t of ts) {
    out.set(t.data, o);
    o += t.size;
  }
  return out;
};

/**
 * The exact Gauss–Newton Fisher F = (1/N) Σ_i J_iᵀJ_i of `model` at θ on the inputs x, in
 * float64: one pullback per (sample, output) pair. Size P×P; for small models.
 */
export function gaussNewtonFisher(model: Para, theta: readonly Tensor[], x: Tensor): Float64Array {
  const th = theta.map((t) => t.to('float64'));
  const P = th.reduce((n, t) => n + t.size, 0);
  const F = new Float64Array(P * P);
  const N = x.batch, per = x.size / N;
  for (let i = 0; i < N; i++) {
    const xi = Tensor.of(x.data.subarray(i * per, (i + 1) * per), [1, ...x.shape.slice(1)], 'float64');
    const lens = model.forward(th, xi, makeCtx());
    const K = lens.y.size;
    for (let k = 0; k < K; k++) {
      const e = Tensor.zeros(lens.y.shape, 'float64');
      e.data[k] = 1;
      const d = th.map((t) => Tensor.zeros(t.shape, 'float64'));
      lens.pullback(e, d, false);
      const j = flatten(d);
      for (let a = 0; a < P; a++) {
        const ja = j[a]!;
        if (ja === 0) continue;
        for (let b = 0; b < P; b++) F[a * P + b] += (ja * j[b]!) / N;
      }
    }
  }
  return F;
}

export interface NaturalOptions extends OptimizerOptions {
  /** λ in (F + λI)⁻¹ (default 1e-3). */
  damping?: number;
  /** EMA decay of the empirical Fisher when no model is bound (default 0.95). */
  decay?: number;
}

/**
 * The natural-gradient optimiser. Bound to a model and inputs (`bind`), it uses the exact
 * Gauss–Newton Fisher at the current θ every step; unbound (e.g. `--optimizer natural`), it
 * falls back to the empirical Fisher, an exponential average of g gᵀ over steps.
 * Parameters are flattened; models up to 4096 parameters.
 */
export class NaturalGradient implements Optimizer {
  readonly name = 'natural';
  t = 0;
  private F?: Float64Array;
  private bound?: { model: Para; x: Tensor };
  constructor(private readonly opts: NaturalOptions) {
    checkLr(opts.lr);
  }
  /** Use the exact Fisher of `model` on inputs `x` (recomputed at every step). */
  bind(model: Para, x: Tensor): this {
    this.bound = { model, x };
    return this;
  }
  /** The Trainer's hook: bind to the model and (up to 256 of) the training inputs. */
  prepare(model: Para, x: Tensor): Para {
    this.bind(model, x.batch > 256 ? x.rows(0, 256) : x);
    return model;
  }
  lr(): number {
    return scheduledLr(this.opts, this.t);
  }
  /** The natural direction (F + λI)⁻¹ g for the flattened gradient g. */
  direction(theta: readonly Tensor[], g: Float64Array): Float64Array {
    const P = g.length;
    if (P > 4096) throw new RangeArgError(`natural gradient: ${P} parameters is too many for a dense Fisher (limit 4096); use K-FAC`);
    let F: Float64Array;
    if (this.bound) F = gaussNewtonFisher(this.bound.model, theta, this.bound.x);
    else {
      const beta = this.opts.decay ?? 0.95;
      this.F ??= new Float64Array(P * P);
      for (let a = 0; a < P; a++) for (let b = 0; b < P; b++) this.F[a * P + b] = beta * this.F[a * P + b]! + (1 - beta) * g[a]! * g[b]!;
      const corr = 1 - Math.pow(beta, this.t + 1);
      F = this.F.map((v) => v / corr);
    }
    return dampedSolve(F, P, g, this.opts.damping ?? 1e-3);
  }
  step(theta: readonly Tensor[], grads: readonly Tensor[]): void {
    const lr = this.lr();
    const d = this.direction(theta, flatten(grads));
    this.t++;
    let o = 0;
    for (const p of theta) {
      for (let j = 0; j < p.size; j++) p.data[j] -= lr * d[o + j]!;
      o += p.size;
    }
  }
  state(): OptimizerState {
    return { name: this.name, t: this.t, slots: this.F ? { fisher: [Tensor.of(this.F, [this.F.length], 'float64')] } : {} };
  }
  loadState(s: OptimizerState): void {
    this.t = s.t;
    this.F = s.slots.fisher?.[0] ? Float64Array.from(s.slots.fisher[0].data) : undefined;
  }
  checkState(s: OptimizerState, theta: readonly Tensor[]): void {
    if (!s.slots.fisher) return checkSlots(s, theta, []);
    const P = theta.reduce((n, p) => n + p.size, 0), F = s.slots.fisher;
    if (Object.keys(s.slots).length !== 1 || F.length !== 1 || F[0]!.size !== P * P) throw new RangeArgError(`optimiser state of natural gradient must be one Fisher matrix of ${P}×${P} values`);
    checkFiniteValues(F[0]!, 'the Fisher matrix');
  }
}
