import { RangeArgError } from '../../errors.js';
import { primitive } from '../../para/composite.js';
import { checkInput } from '../../para/para.js';
import type { Initializer, Para } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import { applyUnary, unaryDerivative } from '../../tensor/js-backend.js';
import { constant, glorotUniform, zeros } from '../initializers.js';

/** σ = softplus(ρ) = log(1 + e^ρ), computed without overflow. */
export function softplusValue(rho: number): number {
  return applyUnary('softplus', rho);
}

/** ρ = softplus⁻¹(σ) = log(e^σ − 1), for σ > 0. */
export function softplusInverse(sigma: number): number {
  if (!(sigma > 0)) throw new RangeArgError(`σ must be > 0, got ${sigma}`);
  return sigma > 20 ? sigma : Math.log(Math.expm1(sigma));
}

/** dσ/dρ = softplus′(ρ) = logistic(ρ). */
export function softplusDerivative(rho: number): number {
  return unaryDerivative('softplus', rho, 0); // softplus′ reads x only: no softplus(ρ) to compute
}

/** The initial posterior standard deviation when none is given. */
export const DEFAULT_SIGMA0 = 0.05;

/**
 * bayes_dense(in,out[,sigma0]): a dense layer whose weights and biases are Gaussian random
 * variables, W ~ N(μ_W, σ_W²), b ~ N(μ_b, σ_b²), σ = softplus(ρ) (Blundell et al. 2015,
 * "Weight Uncertainty in Neural Networks", §3.2). Parameters: weight_mu [out,in],
 * weight_rho [out,in], bias_mu [out], bias_rho [out]; ρ starts at softplus⁻¹(sigma0).
 *
 * Training mode (a stochastic morphism, seed 000 §Markov): one draw ε ~ N(0, I) from
 * `ctx.rng` per forward call, W = μ + σ ⊙ ε (the reparameterisation trick), y = x·Wᵀ + b.
 * The pullback reaches μ and ρ through the sample: dμ = dW, dρ = dW ⊙ ε ⊙ logistic(ρ),
 * with dW = dyᵀ·x (and db = Σ dy), dx = dy·W. Evaluation mode uses the posterior means μ.
 * The KL term of the ELBO is not in the pullback: `trainElbo` adds it (see elbo.ts).
 */
export function bayesDense(inDim: number, outDim: number, sigma0?: number): Para {
  if (!(Number.isInteger(inDim) && inDim > 0 && Number.isInteger(outDim) && outDim > 0)) {
    throw new RangeArgError(`bayes_dense(in,out) needs positive integer sizes, got bayes_dense(${inDim},${outDim})`);
  }
  if (sigma0 !== undefined && !(sigma0 > 0 && Number.isFinite(sigma0))) {
    throw new RangeArgError(`bayes_dense(in,out,sigma0): the initial σ must be > 0, got sigma0 = ${sigma0}`);
  }
  const rho0: Initializer = constant(softplusInverse(sigma0 ?? DEFAULT_SIGMA0));
  const self: Para = primitive({
    kind: 'bayes_dense',
    args: sigma0 === undefined ? [inDim, outDim] : [inDim, outDim, sigma0],
    dom: [inDim],
    cod: [outDim],
    params: [
      { name: 'weight_mu', shape: [outDim, inDim], init: glorotUniform(inDim, outDim) },
      { name: 'weight_rho', shape: [outDim, inDim], init: rho0 },
      { name: 'bias_mu', shape: [outDim], init: zeros },
      { name: 'bias_rho', shape: [outDim], init: rho0 },
    ],
    forward: ([wMu, wRho, bMu, bRho], x, ctx) => {
      checkInput(self, x);
      const B = x.batch;
      const be = backend();
      const sampled = ctx.training;
      // W = μ + softplus(ρ) ⊙ ε, b likewise; ε kept for the pullback
      const W = sampled ? ctx.alloc(wMu!.shape, x.dtype) : wMu!;
      const b = sampled ? ctx.alloc(bMu!.shape, x.dtype) : bMu!;
      const epsW = sampled ? ctx.alloc(wMu!.shape, x.dtype) : undefined;
      const epsB = sampled ? ctx.alloc(bMu!.shape, x.dtype) : undefined;
      if (sampled) {
        for (let i = 0; i < W.size; i++) {
          const e = ctx.rng.normal();
          epsW!.data[i] = e;
          W.data[i] = wMu!.data[i]! + softplusValue(wRho!.data[i]!) * e;
        }
        for (let i = 0; i < b.size; i++) {
          const e = ctx.rng.normal();
          epsB!.data[i] = e;
          b.data[i] = bMu!.data[i]! + softplusValue(bRho!.data[i]!) * e;
        }
      }
      const y = ctx.alloc([B, outDim], x.dtype);
      be.gemm(false, true, B, outDim, inDim, x.data, W.data, y.data, false);
      be.addRowVector(y.data, b.data, B, outDim, y.data, 'identity');
      return {
        y,
        pullback: (dy, dTheta, needDx = true) => {
          if (dTheta) {
            const dW = ctx.alloc(wMu!.shape, dy.dtype);
            const db = ctx.alloc(bMu!.shape, dy.dtype);
            be.gemm(true, false, outDim, inDim, B, dy.data, x.data, dW.data, false);
            be.sumRows(dy.data, B, outDim, db.data, false);
            be.axpy(1, dW.data, dTheta[0]!.data);
            be.axpy(1, db.data, dTheta[2]!.data);
            if (sampled) {
              const gWRho = dTheta[1]!.data,
                gBRho = dTheta[3]!.data;
              for (let i = 0; i < dW.size; i++) gWRho[i]! += dW.data[i]! * epsW!.data[i]! * softplusDerivative(wRho!.data[i]!);
              for (let i = 0; i < db.size; i++) gBRho[i]! += db.data[i]! * epsB!.data[i]! * softplusDerivative(bRho!.data[i]!);
            }
          }
          const dx = ctx.alloc([B, inDim], x.dtype);
          if (needDx) be.gemm(false, false, B, inDim, outDim, dy.data, W.data, dx.data, false);
          return dx;
        },
      };
    },
  });
  return self;
}
