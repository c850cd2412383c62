import { RangeArgError } from '../errors.js';
import { primitive, seq, par } from '../para/category.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { Rng } from '../markov/rng.js';
import { backend } from '../tensor/backend.js';
import { Tensor } from '../tensor/tensor.js';
import { checkLr, defineOptimizer, scheduledLr } from './optimizer.js';
import type { Optimizer, OptimizerOptions, OptimizerState } from './optimizer.js';

/**
 * Natural gradient (Amari 1998) and K-FAC (Martens & Grosse 2015): updates that are
 * "cartesian" for the fibration π: parameters → functions of seed 001 — they move the
 * function, not the coordinates, so they commute with reparameterisations θ = Mφ.
 *
 * Δθ = −η (F + λI)⁻¹ ∇L, with F the Fisher information. For a Gaussian likelihood (MSE) the
 * Fisher is the Gauss–Newton matrix F = (1/N) Σ_i J_iᵀJ_i, J_i = ∂f(x_i)/∂θ.
 */

/**
 * Solves (F + λI) X = B for symmetric positive (semi)definite F (P×P) and the `cols` columns
 * of B (P×cols, row-major), with one Cholesky factorisation for all of them. A pivot ≤ 0
 * throws a RangeArgError (raise λ) — or, with `clampPivots`, is taken as 1e-300 (ridge fits
 * of rank-deficient features).
 */
export function dampedSolve(F: Float64Array, P: number, B: Float64Array, damping: number, cols = 1, clampPivots = false): Float64Array {
  const L = new Float64Array(P * P);
  for (let i = 0; i < P; i++)
    for (let j = 0; j <= i; j++) {
      let s = F[i * P + j]! + (i === j ? damping : 0);
      for (let k = 0; k < j; k++) s -= L[i * P + k]! * L[j * P + k]!;
      if (i === j) {
        if (!(s > 0) && !clampPivots) throw new RangeArgError(`natural gradient: F + λI is not positive definite (pivot ${s.toExponential(2)} at ${i}); raise the damping`);
        L[i * P + i] = Math.sqrt(Math.max(s, 1e-300));
      } else L[i * P + j] = s / L[j * P + j]!;
    }
  const X = new Float64Array(P * cols), y = new Float64Array(P);
  for (let c = 0; c < cols; c++) {
    for (let i = 0; i < P; i++) {
      let s = B[i * cols + c]!;
      for (let k = 0; k < i; k++) s -= L[i * P + k]! * y[k]!;
      y[i] = s / L[i * P + i]!;
    }
    for (let i = P - 1; i >= 0; i--) {
      let s = y[i]!;
      for (let k = i + 1; k < P; k++) s -= L[k * P + i]! * y[k]!;
      y[i] = s / L[i * P + i]!;
    }
    for (let i = 0; i < P; i++) X[i * cols + c] = y[i]!;
  }
  return X;
}

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
}

/** Running Kronecker factors of one dense layer: A = E[ã ãᵀ] (ã = [a; 1]), G = E[g gᵀ] (g = per-sample output gradient). */
export interface KroneckerFactors {
  readonly inDim: number;
  readonly outDim: number;
  A: Float64Array;
  G: Float64Array;
  updates: number;
}

/** Factors of every dense layer, keyed by the layer's weight tensor. */
export type KfacStats = Map<Tensor, KroneckerFactors>;

/**
 * Instruments a model for K-FAC: every `dense` layer inside seq/par composites records A from
 * its inputs and G from its output cotangents. With `fisher: 'sampled'` (default; the true
 * Fisher of the Gaussian likelihood behind MSE, Martens & Grosse 2015 §5) each training
 * pullback first pulls back a random u ~ N(0, I) per sample (scaled by 2/K, K outputs) to
 * record G, then the real cotangent; with `'empirical'` G comes from the loss gradient itself.
 * The returned model computes the same function and prints the same spec.
 */
export function kfacModel(model: Para, opts: { stats?: KfacStats; decay?: number; fisher?: 'sampled' | 'empirical'; seed?: number } = {}): { model: Para; stats: KfacStats } {
  const stats = opts.stats ?? new Map<Tensor, KroneckerFactors>();
  const decay = opts.decay ?? 0.95, sampled = (opts.fisher ?? 'sampled') === 'sampled';
  const rng = new Rng(opts.seed ?? 0);
  let recording = !sampled;
  const wrap = (f: Para): Para => {
    if (f.kind === 'seq') return seq(...f.children.map(wrap));
    if (f.kind === 'par') return par(...f.children.map(wrap));
    if (f.kind !== 'dense') return f;
    const [inDim, outDim] = f.args as [number, number];
    return primitive({
      kind: 'dense', args: f.args, dom: f.dom, cod: f.cod, params: f.params,
      forward: (theta, x, ctx) => {
        const lens = f.forward(theta, x, ctx);
        return {
          y: lens.y,
          pullback: (dy, dTheta, needDx) => {
            if (recording) {
              let s = stats.get(theta[0]!);
              if (!s) stats.set(theta[0]!, (s = { inDim, outDim, A: new Float64Array((inDim + 1) ** 2), G: new Float64Array(outDim ** 2), updates: 0 }));
              const B = x.batch, n1 = inDim + 1, beta = s.updates ? decay : 0;
              // per-sample gradients of a batch-mean loss are B·dy_b; sampled cotangents are per sample already
              const c = sampled ? 1 / B : B;
              for (let i = 0; i < s.A.length; i++) s.A[i] *= beta;
              for (let i = 0; i < s.G.length; i++) s.G[i] *= beta;
              for (let b = 0; b < B; b++) {
                const a = (i: number): number => (i < inDim ? x.data[b * inDim + i]! : 1);
                for (let i = 0; i < n1; i++) for (let j = 0; j < n1; j++) s.A[i * n1 + j] += ((1 - beta) * a(i) * a(j)) / B;
                for (let i = 0; i < outDim; i++) for (let j = 0; j < outDim; j++) s.G[i * outDim + j] += (1 - beta) * c * dy.data[b * outDim + i]! * dy.data[b * outDim + j]!;
              }
              s.updates++;
              if (sampled) return lens.pullback(dy, null, true);
            }
            return lens.pullback(dy, dTheta, needDx);
          },
        };
      },
    });
  };
  const inner = wrap(model);
  if (!sampled) return { model: inner, stats };
  const outer = primitive({
    kind: inner.kind, args: inner.args, dom: inner.dom, cod: inner.cod, params: inner.params,
    at: inner.dom ? undefined : (dom) => kfacModel(model.at(dom), opts).model,
    forward: (theta, x, ctx) => {
      const lens = inner.forward(theta, x, ctx);
      return {
        y: lens.y,
        pullback: (dy, dTheta, needDx) => {
          if (dTheta) {
            const K = dy.size / dy.batch;
            const u = ctx.alloc(dy.shape, dy.dtype);
            // the context's generator (the Trainer's, saved in checkpoints), so a resumed run draws the same u
            const r = ctx.training ? ctx.rng : rng;
            for (let i = 0; i < u.size; i++) u.data[i] = r.normal() * Math.sqrt(2 / K);
            recording = true;
            try {
              lens.pullback(u, null, false);
            } finally {
              recording = false;
            }
          }
          return lens.pullback(dy, dTheta, needDx);
        },
      };
    },
  });
  return { model: Object.assign(outer, { toString: () => String(inner) }), stats };
}

/**
 * K-FAC for dense layers: [ΔW Δb] = −η (G + γI)⁻¹ [∇W ∇b] (A + γI)⁻¹ with γ = √λ
 * (Martens & Grosse 2015, §4 and §6.3 "factored Tikhonov damping"). Tensors without
 * recorded factors (layers that are not dense, or a model not wrapped by `kfacModel`) take a
 * plain SGD step.
 */
export class KFAC implements Optimizer {
  readonly name = 'kfac';
  t = 0;
  constructor(private readonly opts: NaturalOptions, readonly stats: KfacStats = new Map()) {
    checkLr(opts.lr);
  }
  lr(): number {
    return scheduledLr(this.opts, this.t);
  }
  private params?: readonly Tensor[];
  /** The Trainer's hook: instrument the model's dense layers to record their Kronecker factors. */
  prepare(model: Para, _x: Tensor, theta?: readonly Tensor[]): Para {
    this.params = theta;
    return kfacModel(model, { stats: this.stats }).model;
  }
  step(theta: readonly Tensor[], grads: readonly Tensor[]): void {
    const lr = this.lr(), gamma = Math.sqrt(this.opts.damping ?? 1e-3);
    for (let i = 0; i < theta.length; i++) {
      const s = this.stats.get(theta[i]!);
      if (!s || i + 1 >= theta.length) {
        // no factors recorded (not a dense weight): a plain gradient step with this step's rate
        backend().axpy(-lr, grads[i]!.data, theta[i]!.data);
        continue;
      }
      const { inDim: n, outDim: m } = s, n1 = n + 1;
      const gW = grads[i]!.data, gb = grads[i + 1]!.data;
      // X = (G+γI)⁻¹ [∇W ∇b] (m×n1), then Δᵀ = (A+γI)⁻¹ Xᵀ (A symmetric): one factorisation each
      const g = new Float64Array(m * n1);
      for (let r = 0; r < m; r++) {
        for (let j = 0; j < n; j++) g[r * n1 + j] = gW[r * n + j]!;
        g[r * n1 + n] = gb[r]!;
      }
      const X = dampedSolve(s.G, m, g, gamma, n1);
      const Xt = new Float64Array(n1 * m);
      for (let r = 0; r < m; r++) for (let j = 0; j < n1; j++) Xt[j * m + r] = X[r * n1 + j]!;
      const D = dampedSolve(s.A, n1, Xt, gamma, m);
      for (let r = 0; r < m; r++) {
        for (let j = 0; j < n; j++) theta[i]!.data[r * n + j] -= lr * D[j * m + r]!;
        theta[i + 1]!.data[r] -= lr * D[n * m + r]!;
      }
      i++;
    }
    this.t++;
  }
  /** The Kronecker factors travel with the state, aligned with θ (an empty tensor where a parameter has none). */
  state(): OptimizerState {
    const theta = this.params ?? [];
    const f = theta.map((p) => this.stats.get(p));
    return {
      name: this.name,
      t: this.t,
      slots: {
        A: f.map((s) => Tensor.of(s ? s.A : [], [s ? s.A.length : 0], 'float64')),
        G: f.map((s) => Tensor.of(s ? s.G : [], [s ? s.G.length : 0], 'float64')),
        updates: [Tensor.of(f.map((s) => s?.updates ?? 0), [f.length], 'float64')],
      },
    };
  }
  loadState(s: OptimizerState): void {
    this.t = s.t;
    const theta = this.params;
    if (!theta || !s.slots.A) return;
    this.stats.clear();
    theta.forEach((p, i) => {
      const A = s.slots.A![i]!, G = s.slots.G![i]!;
      if (A.size) this.stats.set(p, { inDim: p.shape[1]!, outDim: p.shape[0]!, A: Float64Array.from(A.data), G: Float64Array.from(G.data), updates: s.slots.updates![0]!.data[i]! });
    });
  }
}

defineOptimizer('natural', (o) => new NaturalGradient(o));
defineOptimizer('kfac', (o) => new KFAC(o));
