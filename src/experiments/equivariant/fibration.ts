import { Rng } from '../../random/rng.js';
import { mse } from '../../nn/loss.js';
import type { Loss } from '../../nn/loss.js';
import { makeCtx } from '../../para/para.js';
import type { Para } from '../../para/para.js';
import { parseSpec } from '../../catalogue/index.js';
import { cubicReparam, linearReparam } from '../../para/param-maps.js';
import { NaturalGradient, SGD } from '../../optim/index.js';
import { Tensor } from '../../tensor/tensor.js';
import { inverse, mat, matmul } from '../../linalg/matrix.js';

/**
 * Seed 001, "Learning dynamics as fibration": parameters φ sit over functions f_θ through
 * π; a reparameterisation θ = h(φ) changes coordinates, not the function. A natural update
 * T commutes with it (T∘h = h∘T): after one natural-gradient step the function is the same
 * in either coordinate system; a plain gradient step depends on the coordinates.
 */

export interface ReparamDemo {
  /** max |f_after(direct) − f_after(reparameterised)| for θ = Mφ. */
  linear: { natural: number; gradientDescent: number };
  /** the same for θ = φ + ½φ³ at several step sizes η (natural gradient): shrinks like η². */
  nonlinear: { eta: number; natural: number; gradientDescent: number }[];
}

const flat = (ts: readonly Tensor[]): Float64Array => {
  const out = new Float64Array(ts.reduce((n, t) => n + t.size, 0));
  let o = 0;
  for (const t of ts) {
    out.set(t.data, o);
    o += t.size;
  }
  return out;
};

/** One step of `kind` on model g at params q (float64), returning the new params. */
function oneStep(g: Para, q: Tensor[], x: Tensor, y: Tensor, eta: number, kind: 'natural' | 'sgd', loss: Loss, damping: number): Tensor[] {
  const lens = g.forward(q, x, makeCtx());
  const L = loss.apply(lens.y, y);
  const grads = q.map((t) => Tensor.zeros(t.shape, 'float64'));
  lens.pullback(L.pullback(), grads, false);
  const next = q.map((t) => t.clone());
  const opt = kind === 'natural' ? new NaturalGradient({ lr: eta, damping }).bind(g, x, loss) : new SGD({ lr: eta });
  opt.step(next, grads);
  return next;
}

/**
 * The loss of the demo, how the teacher's outputs become targets (default: the outputs
 * themselves), how two models are compared (default: their outputs; a softmax model is
 * compared by its probabilities, which a shift of all logits leaves alone) and the damping of
 * the natural step (default 0; a softmax Fisher is singular along that shift).
 */
export interface ReparamTask {
  readonly loss: Loss;
  readonly targets?: (teacherOutput: Tensor) => Tensor;
  readonly readout?: (output: Tensor) => Tensor;
  readonly damping?: number;
}

/**
 * Runs the demo on a small nonlinear model (default dense(3,2) >> tanh, 8 parameters) fitting a random
 * teacher on 64 points: one step in θ coordinates and one step in φ coordinates, compared
 * as functions on the inputs. With a cross-entropy task the natural step uses the Fisher of
 * that loss's output distribution.
 */
export function reparameterisationDemo(
  seed = 0,
  etas = [0.1, 0.05, 0.025, 0.0125],
  spec = 'dense(3,2) >> tanh',
  task: ReparamTask = { loss: mse },
): ReparamDemo {
  const rng = new Rng(seed);
  const f = parseSpec(spec);
  const N = 64;
  const x = Tensor.zeros([N, f.dom![0]!], 'float64');
  for (let i = 0; i < x.size; i++) x.data[i] = rng.normal();
  const teacher = f.init(rng.split(), 'float64');
  const y = (task.targets ?? ((t: Tensor) => t))(f.run(teacher, x));
  const theta0 = f.init(rng.split(), 'float64');
  const P = flat(theta0).length;
  const M = mat(P, P);
  for (let i = 0; i < P * P; i++) M.data[i] = rng.normal() / Math.sqrt(P) + (i % (P + 1) === 0 ? 1 : 0);
  const unflat = (v: Float64Array): Tensor[] => {
    let o = 0;
    return theta0.map((t) => {
      const u = Tensor.of(v.subarray(o, o + t.size), t.shape, 'float64');
      o += t.size;
      return u;
    });
  };
  const readout = task.readout ?? ((t: Tensor) => t);
  const fOut = (th: Tensor[]): Float64Array => Float64Array.from(readout(f.run(th, x)).data);
  const maxDiff = (a: Float64Array, b: Float64Array): number => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
  const compare = (g: Para, phi0: Float64Array, toTheta: (phi: Float64Array) => Float64Array, eta: number, kind: 'natural' | 'sgd'): number => {
    const direct = fOut(
      oneStep(
        f,
        theta0.map((t) => t.clone()),
        x,
        y,
        eta,
        kind,
        task.loss,
        task.damping ?? 0,
      ),
    );
    const phi1 = oneStep(g, [Tensor.of(phi0, [P], 'float64')], x, y, eta, kind, task.loss, task.damping ?? 0);
    return maxDiff(direct, fOut(unflat(toTheta(Float64Array.from(phi1[0]!.data)))));
  };
  // linear: φ₀ = M⁻¹θ₀
  const gLin = linearReparam(f, M);
  const phiLin = matmul(inverse(M), mat(P, 1, flat(theta0))).data;
  const toLin = (phi: Float64Array): Float64Array => matmul(M, mat(P, 1, phi)).data;
  // cubic: φ₀ solves φ + ½φ³ = θ₀ (Newton)
  const gCub = cubicReparam(f, 0.5);
  const phiCub = flat(theta0).map((t) => {
    let p = t;
    for (let k = 0; k < 60; k++) p -= (p + 0.5 * p ** 3 - t) / (1 + 1.5 * p * p);
    return p;
  });
  const toCub = (phi: Float64Array): Float64Array => phi.map((v) => v + 0.5 * v ** 3);
  const eta0 = etas[0]!;
  return {
    linear: { natural: compare(gLin, phiLin, toLin, eta0, 'natural'), gradientDescent: compare(gLin, phiLin, toLin, eta0, 'sgd') },
    nonlinear: etas.map((eta) => ({ eta, natural: compare(gCub, phiCub, toCub, eta, 'natural'), gradientDescent: compare(gCub, phiCub, toCub, eta, 'sgd') })),
  };
}
