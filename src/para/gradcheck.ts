import { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import { makeCtx } from './para.js';
import type { Para } from './para.js';

export interface GradcheckResult {
  /** Directional derivative from the pullback: ⟨dθ, vθ⟩ + ⟨dx, vx⟩. */
  analytic: number;
  /** The same by float64 central differences of ⟨r, F(θ + εvθ, x + εvx)⟩. */
  numeric: number;
  relError: number;
  ok: boolean;
}

export interface GradcheckOptions {
  seed?: number;
  batch?: number;
  eps?: number;
  tol?: number;
  /** Input shape per sample, when f takes any shape. */
  dom?: Shape;
  /** Parameters to check at (float64); default: f's initialisers. */
  theta?: Tensor[];
  /** Input to check at (float64); default: standard normal. */
  x?: Tensor;
  /** Hold the input fixed (no vx): for inputs that are not continuous, such as token ids. */
  fixedInput?: boolean;
  /** Run the forward in training mode (stochastic layers use a fixed seed for every evaluation). */
  training?: boolean;
}

const randn = (shape: Shape, rng: Rng): Tensor => {
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
};
const dot = (a: Tensor, b: Tensor): number => {
  let s = 0;
  for (let i = 0; i < a.size; i++) s += a.data[i]! * b.data[i]!;
  return s;
};

/**
 * One-call gradient check of a morphism's pullback (JAX's check_grads in one random
 * direction): compares ⟨dθ, vθ⟩ + ⟨dx, vx⟩ from the pullback of a random cotangent r with
 * the central difference of ⟨r, F⟩ along (vθ, vx), in float64.
 */
export function gradcheck(f: Para, opts: GradcheckOptions = {}): GradcheckResult {
  const rng = new Rng(opts.seed ?? 1);
  const g = opts.dom ? f.at(opts.dom) : f;
  if (!g.dom && !opts.x) throw new Error(`gradcheck(${f}): give opts.dom or opts.x, the morphism takes any shape`);
  const B = opts.batch ?? 3;
  const x = opts.x ? opts.x.to('float64') : randn([B, ...g.dom!], rng);
  const theta = opts.theta ? opts.theta.map((t) => t.to('float64')) : g.init(rng.split(), 'float64');
  const vx = opts.fixedInput ? Tensor.zeros(x.shape, 'float64') : randn(x.shape, rng);
  // a frozen parameter (a stored constant) is held fixed: it gets no direction
  const vt = theta.map((t, i) => (g.params[i]?.frozen ? Tensor.zeros(t.shape, 'float64') : randn(t.shape, rng)));
  const ctxSeed = rng.nextUint32();
  const ctx = () => makeCtx({ training: opts.training ?? false, rng: new Rng(ctxSeed) });
  const lens = g.forward(theta, x, ctx());
  const r = randn(lens.y.shape, rng);
  // the pullback must ADD into dθ (the Lens contract): start from random values and subtract them
  const start = theta.map((t) => randn(t.shape, rng));
  const dTheta = start.map((t) => t.clone());
  const dx = lens.pullback(r, dTheta);
  const analytic = dot(dx, vx) + dTheta.reduce((s, d, i) => s + dot(d, vt[i]!) - dot(start[i]!, vt[i]!), 0);
  const eps = opts.eps ?? 1e-6;
  const at = (h: number): number => {
    const xs = x.clone();
    for (let i = 0; i < xs.size; i++) xs.data[i]! += h * vx.data[i]!;
    const ts = theta.map((t, k) => {
      const u = t.clone();
      for (let i = 0; i < u.size; i++) u.data[i]! += h * vt[k]!.data[i]!;
      return u;
    });
    return dot(r, g.forward(ts, xs, ctx()).y);
  };
  const numeric = (at(eps) - at(-eps)) / (2 * eps);
  const relError = Math.abs(analytic - numeric) / Math.max(1e-8, Math.abs(analytic) + Math.abs(numeric));
  return { analytic, numeric, relError, ok: relError < (opts.tol ?? 1e-5) };
}
