import { RangeArgError, ShapeError } from '../errors.js';
import { primitive, seq, par } from '../para/composite.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { Rng } from '../random/rng.js';
import { backend } from '../tensor/registry.js';
import { Tensor } from '../tensor/tensor.js';
import { dampedSolve } from '../linalg/cholesky.js';
import { checkFiniteValues, checkLr, checkSlots, scheduledLr } from './optimizer.js';
import type { Optimizer, OptimizerState } from './optimizer.js';
import { NATURAL_MAX_PARAMETERS } from './natural-gradient.js';
import type { NaturalOptions } from './natural-gradient.js';

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
export function kfacModel(
  model: Para,
  opts: { stats?: KfacStats; decay?: number; fisher?: 'sampled' | 'empirical'; seed?: number } = {},
): { model: Para; stats: KfacStats } {
  const stats = opts.stats ?? new Map<Tensor, KroneckerFactors>();
  const decay = opts.decay ?? 0.95,
    sampled = (opts.fisher ?? 'sampled') === 'sampled';
  const rng = new Rng(opts.seed ?? 0);
  let recording = !sampled;
  const wrap = (f: Para): Para => {
    if (f.kind === 'seq') return seq(...f.children.map(wrap));
    if (f.kind === 'par') return par(...f.children.map(wrap));
    if (f.kind !== 'dense') return f;
    const [inDim, outDim] = f.args as [number, number];
    // each step factorises (in+1)×(in+1) and out×out matrices: bounded like natural's dense Fisher, refused before any is made
    if (Math.max(inDim + 1, outDim) > NATURAL_MAX_PARAMETERS)
      throw new RangeArgError(
        `kfac: ${f} has a ${inDim + 1}×${inDim + 1} and a ${outDim}×${outDim} Kronecker factor, above the limit ${NATURAL_MAX_PARAMETERS} (each is factorised every step); use adam`,
      );
    return primitive({
      kind: 'dense',
      args: f.args,
      dom: f.dom,
      cod: f.cod,
      params: f.params,
      forward: (theta, x, ctx) => {
        const lens = f.forward(theta, x, ctx);
        return {
          y: lens.y,
          pullback: (dy, dTheta, needDx) => {
            if (recording) {
              let s = stats.get(theta[0]!);
              if (!s) stats.set(theta[0]!, (s = { inDim, outDim, A: new Float64Array((inDim + 1) ** 2), G: new Float64Array(outDim ** 2), updates: 0 }));
              // a dense layer acts per position: its rows are the B samples of [B, in] inputs, or
              // the B·T positions of [B, T, in] (shared weights: Grosse & Martens 2016's KFC)
              const B = x.batch,
                R = x.size / inDim,
                n1 = inDim + 1,
                beta = s.updates ? decay : 0;
              // per-row gradients of a loss averaged over the R rows are R·dy_r; sampled
              // cotangents are per sample already, their outer products summed over its positions
              const c = sampled ? 1 / B : R;
              for (let i = 0; i < s.A.length; i++) s.A[i]! *= beta;
              for (let i = 0; i < s.G.length; i++) s.G[i]! *= beta;
              for (let r = 0; r < R; r++) {
                const a = (i: number): number => (i < inDim ? x.data[r * inDim + i]! : 1);
                for (let i = 0; i < n1; i++) for (let j = 0; j < n1; j++) s.A[i * n1 + j]! += ((1 - beta) * a(i) * a(j)) / R;
                for (let i = 0; i < outDim; i++)
                  for (let j = 0; j < outDim; j++) s.G[i * outDim + j]! += (1 - beta) * c * dy.data[r * outDim + i]! * dy.data[r * outDim + j]!;
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
    kind: inner.kind,
    args: inner.args,
    dom: inner.dom,
    cod: inner.cod,
    params: inner.params,
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
  constructor(
    private readonly opts: NaturalOptions,
    readonly stats: KfacStats = new Map(),
  ) {
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
    const lr = this.lr(),
      gamma = Math.sqrt(this.opts.damping ?? 1e-3);
    for (let i = 0; i < theta.length; i++) {
      const s = this.stats.get(theta[i]!);
      if (!s || i + 1 >= theta.length) {
        // no factors recorded (not a dense weight): a plain gradient step with this step's rate
        backend().axpy(-lr, grads[i]!.data, theta[i]!.data);
        continue;
      }
      const { inDim: n, outDim: m } = s,
        n1 = n + 1;
      const gW = grads[i]!.data,
        gb = grads[i + 1]!.data;
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
        for (let j = 0; j < n; j++) theta[i]!.data[r * n + j]! -= lr * D[j * m + r]!;
        theta[i + 1]!.data[r]! -= lr * D[n * m + r]!;
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
        updates: [
          Tensor.of(
            f.map((s) => s?.updates ?? 0),
            [f.length],
            'float64',
          ),
        ],
      },
    };
  }
  checkState(s: OptimizerState, theta: readonly Tensor[]): void {
    if (!s.slots.A) return checkSlots(s, theta, []);
    const { A, G, updates } = s.slots;
    const fits = (ts: Tensor[] | undefined): boolean => ts !== undefined && ts.length === theta.length;
    if (!fits(A) || !fits(G) || updates?.length !== 1 || updates[0]!.size !== theta.length)
      throw new RangeArgError(`optimiser state of K-FAC must hold factors A, G (one per parameter) and their update counts`);
    theta.forEach((p, i) => {
      const a = A![i]!,
        g = G![i]!;
      if (a.size === 0 && g.size === 0) return;
      const n1 = (p.shape[1] ?? 0) + 1,
        m = p.shape[0]!;
      if (p.shape.length !== 2 || a.size !== n1 * n1 || g.size !== m * m)
        throw new ShapeError(
          `K-FAC factors ${i} hold ${a.size} and ${g.size} values; parameter ${i} of shape [${p.shape.join(',')}] needs ${n1 * n1} and ${m * m}`,
        );
      checkFiniteValues(a, `K-FAC factor A ${i}`);
      checkFiniteValues(g, `K-FAC factor G ${i}`);
    });
  }
  loadState(s: OptimizerState): void {
    this.t = s.t;
    const theta = this.params;
    if (!theta || !s.slots.A) return;
    this.stats.clear();
    theta.forEach((p, i) => {
      const A = s.slots.A![i]!,
        G = s.slots.G![i]!;
      if (A.size)
        this.stats.set(p, {
          inDim: p.shape[1]!,
          outDim: p.shape[0]!,
          A: Float64Array.from(A.data),
          G: Float64Array.from(G.data),
          updates: s.slots.updates![0]!.data[i]!,
        });
    });
  }
}
