import { RangeArgError } from '../errors.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { sizeOf, Tensor } from '../tensor/tensor.js';
import { dampedSolve } from '../linalg/cholesky.js';
import type { Link } from '../nn/link.js';
import type { Loss } from '../nn/loss.js';
import { checkFiniteValues, checkLr, checkSlots, scheduledLr } from './optimizer.js';
import type { Optimizer, OptimizerOptions, OptimizerState } from './optimizer.js';

/**
 * Natural gradient (Amari 1998) and K-FAC (Martens & Grosse 2015): updates that are
 * "cartesian" for the fibration π: parameters → functions of seed 001 — they move the
 * function, not the coordinates, so they commute with reparameterisations θ = Mφ.
 *
 * Δθ = −η (F + λI)⁻¹ ∇L, with F the Fisher information of the model's own output
 * distribution: F = (1/N) Σ_i J_iᵀ M_i J_i with J_i = ∂f(x_i)/∂θ and M_i the Fisher of the
 * likelihood in the output (Martens 2020, "New insights and perspectives on the natural
 * gradient method", §9.2): for MSE a Gaussian, M = I (the Gauss–Newton matrix); for `bce`
 * on logits a Bernoulli, M = diag(σ(z)(1 − σ(z))); for `softmax-cross-entropy` a categorical,
 * M = diag(p) − ppᵀ with p = softmax(z).
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
 * M = the Fisher of the output distribution at one sample's output z (K values), K×K
 * row-major, read off the loss's link (see the file comment): identity → Gaussian (M = I),
 * sigmoid → Bernoulli, softmax → categorical. Without a loss, M = I (Gauss–Newton).
 */
export function outputFisherBlock(link: Link | undefined, z: ArrayLike<number>): Float64Array {
  const K = z.length;
  const M = new Float64Array(K * K);
  switch (link) {
    case 'sigmoid':
      for (let k = 0; k < K; k++) {
        const p = 1 / (1 + Math.exp(-z[k]!));
        M[k * K + k] = p * (1 - p);
      }
      return M;
    case 'softmax': {
      let zmax = -Infinity;
      for (let k = 0; k < K; k++) zmax = Math.max(zmax, z[k]!);
      const p = Float64Array.from({ length: K }, (_, k) => Math.exp(z[k]! - zmax));
      const sum = p.reduce((a, v) => a + v, 0);
      for (let k = 0; k < K; k++) p[k]! /= sum;
      for (let k = 0; k < K; k++) for (let l = 0; l < K; l++) M[k * K + l] = (k === l ? p[k]! : 0) - p[k]! * p[l]!;
      return M;
    }
    default:
      for (let k = 0; k < K; k++) M[k * K + k] = 1;
      return M;
  }
}

/**
 * How many values a distribution of `link` spans in an output of `shape` (per sample): a
 * categorical (softmax) spans the last axis — one distribution per position, as for
 * token-cross-entropy — a Gaussian or Bernoulli one value each.
 */
function classesOf(link: Link | undefined, shape: readonly number[]): number {
  return link === 'softmax' ? (shape[shape.length - 1] ?? 1) : 1;
}

/** Parameters above which the dense Fisher (P² values, P³ to solve) is refused. */
export const NATURAL_MAX_PARAMETERS = 4096;
/**
 * Multiply-adds of one exact Fisher above which `natural` refuses a model (checkFisherCost):
 * what the largest dense model costs on 256 samples of one output, about 4.3·10⁹.
 */
export const NATURAL_FISHER_BUDGET = 256 * NATURAL_MAX_PARAMETERS * (NATURAL_MAX_PARAMETERS + 2);

/**
 * Refuses (RangeArgError), before anything is allocated, a model whose exact Fisher on N
 * samples costs more than NATURAL_FISHER_BUDGET multiply-adds: per sample, K pullbacks (K
 * outputs; each touches the P parameters once per position) and K rank-1 updates of the P×P
 * matrix, about N·K·P·(P + C + K/C) with C values per distribution.
 */
export function checkFisherCost(model: Para, P: number, N: number, link?: Link): void {
  if (P > NATURAL_MAX_PARAMETERS)
    throw new RangeArgError(`natural gradient: ${model} has ${P} parameters, too many for a dense Fisher (limit ${NATURAL_MAX_PARAMETERS}); use kfac or adam`);
  const cod = model.cod;
  if (!cod) return;
  const K = cod.reduce((a, b) => a * b, 1),
    C = classesOf(link, cod);
  const cost = N * K * P * (P + C + K / C);
  if (cost > NATURAL_FISHER_BUDGET) {
    throw new RangeArgError(
      `natural gradient: the exact Fisher of ${model} costs ${cost.toExponential(1)} multiply-adds a step (${N} samples × ${K} outputs [${cod.join(',')}] × ${P}² parameters), above the limit ${NATURAL_FISHER_BUDGET.toExponential(1)}; use fewer outputs (for text a shorter --context or --batch), kfac or adam`,
    );
  }
}

/**
 * The exact Fisher F = (1/N) Σ_i J_iᵀ M_i J_i of `model` at θ on the inputs x for the output
 * distribution of `loss` (outputFisherBlock of its link), in float64: one pullback per (sample,
 * output) pair. A softmax link is one categorical per position (the last axis), so M_i is
 * block-diagonal and F = (1/(N·positions)) Σ_i Σ_t J_itᵀ M_it J_it, the Fisher of a loss that
 * is a mean over positions (token-cross-entropy). Size P×P; for small models (checkFisherCost).
 */
export function outputFisher(model: Para, theta: readonly Tensor[], x: Tensor, loss?: Pick<Loss, 'link'>): Float64Array {
  const th = theta.map((t) => t.to('float64'));
  const P = th.reduce((n, t) => n + t.size, 0);
  const F = new Float64Array(P * P);
  const N = x.batch,
    per = x.size / N;
  for (let i = 0; i < N; i++) {
    const xi = Tensor.of(x.data.subarray(i * per, (i + 1) * per), [1, ...x.shape.slice(1)], 'float64');
    const lens = model.forward(th, xi, makeCtx());
    const K = lens.y.size,
      C = classesOf(loss?.link, lens.y.shape);
    const scale = 1 / (N * (loss?.link === 'softmax' ? K / C : 1));
    // one distribution (C outputs) at a time: C pullbacks, then its block Jᵀ M J
    for (let o = 0; o < K; o += C) {
      const M = outputFisherBlock(loss?.link, lens.y.data.subarray(o, o + C));
      const J: Float64Array[] = [];
      for (let k = 0; k < C; k++) {
        const e = Tensor.zeros(lens.y.shape, 'float64');
        e.data[o + k] = 1;
        const d = th.map((t) => Tensor.zeros(t.shape, 'float64'));
        lens.pullback(e, d, false);
        J.push(flatten(d));
      }
      // F += Jᵀ (M J): M J first (C²·P), then one rank-1 update per output (P² each)
      const MJ = J.map((_, k) => {
        const row = new Float64Array(P);
        for (let l = 0; l < C; l++) {
          const m = M[k * C + l]! * scale,
            jl = J[l]!;
          if (m !== 0) for (let b = 0; b < P; b++) row[b]! += m * jl[b]!;
        }
        return row;
      });
      for (let k = 0; k < C; k++) {
        const jk = J[k]!,
          mk = MJ[k]!;
        for (let a = 0; a < P; a++) {
          const ja = jk[a]!;
          if (ja === 0) continue;
          for (let b = 0; b < P; b++) F[a * P + b]! += ja * mk[b]!;
        }
      }
    }
  }
  return F;
}

/** The Gauss–Newton Fisher F = (1/N) Σ_i J_iᵀJ_i (the Fisher of a Gaussian likelihood, as for MSE). */
export function gaussNewtonFisher(model: Para, theta: readonly Tensor[], x: Tensor): Float64Array {
  return outputFisher(model, theta, x);
}

export interface NaturalOptions extends OptimizerOptions {
  /** λ in (F + λI)⁻¹ (default 1e-3). */
  damping?: number;
  /** EMA decay of the empirical Fisher when no model is bound (default 0.95). */
  decay?: number;
}

/**
 * The natural-gradient optimiser. Bound to a model, inputs and the loss (`bind`), it uses the
 * exact Fisher of the model's output distribution at the current θ every step (Gaussian for
 * MSE, Bernoulli for bce, categorical for softmax-cross-entropy); unbound (e.g. `--optimizer
 * natural` outside the Trainer), it falls back to the empirical Fisher, an exponential
 * average of g gᵀ over steps.
 * Parameters are flattened; models up to 4096 parameters.
 */
export class NaturalGradient implements Optimizer {
  readonly name = 'natural';
  t = 0;
  private F?: Float64Array;
  private bound?: { model: Para; x: Tensor; loss?: Pick<Loss, 'link'> };
  constructor(private readonly opts: NaturalOptions) {
    checkLr(opts.lr);
  }
  /** Use the exact Fisher of `model` on inputs `x` for the output distribution of `loss` (default: Gaussian, as for MSE), recomputed at every step. */
  bind(model: Para, x: Tensor, loss?: Pick<Loss, 'link'>): this {
    this.bound = { model, x, loss };
    return this;
  }
  /**
   * The Trainer's hook: bind to the model, (up to 256 of) the training inputs and the loss —
   * refused at once (checkFisherCost) when the Fisher of every step would cost too much.
   */
  prepare(model: Para, x: Tensor, theta?: readonly Tensor[], loss?: Pick<Loss, 'link'>): Para {
    const rows = x.batch > 256 ? x.rows(0, 256) : x;
    checkFisherCost(
      model,
      (theta ?? model.params).reduce((n, t) => n + sizeOf(t.shape), 0),
      rows.batch,
      loss?.link,
    );
    this.bind(model, rows, loss);
    return model;
  }
  lr(): number {
    return scheduledLr(this.opts, this.t);
  }
  /** The natural direction (F + λI)⁻¹ g for the flattened gradient g. */
  direction(theta: readonly Tensor[], g: Float64Array): Float64Array {
    const P = g.length;
    if (P > NATURAL_MAX_PARAMETERS)
      throw new RangeArgError(`natural gradient: ${P} parameters is too many for a dense Fisher (limit ${NATURAL_MAX_PARAMETERS}); use kfac or adam`);
    let F: Float64Array;
    if (this.bound) F = outputFisher(this.bound.model, theta, this.bound.x, this.bound.loss);
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
      for (let j = 0; j < p.size; j++) p.data[j]! -= lr * d[o + j]!;
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
    const P = theta.reduce((n, p) => n + p.size, 0),
      F = s.slots.fisher;
    if (Object.keys(s.slots).length !== 1 || F.length !== 1 || F[0]!.size !== P * P)
      throw new RangeArgError(`optimiser state of natural gradient must be one Fisher matrix of ${P}×${P} values`);
    checkFiniteValues(F[0]!, 'the Fisher matrix');
  }
}
