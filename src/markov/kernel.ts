import { RangeArgError } from '../errors.js';
import { Rng } from '../random/rng.js';

/**
 * A stochastic morphism A → B of a Markov category (seed 000, §Markov categories): a
 * Markov kernel, represented — as the seed does — by a function that draws one sample of
 * its output distribution each time it is called. The randomness is explicit: the caller
 * hands in the Rng, so a kernel with a fixed seed is a reproducible function.
 */
export interface Kernel<A, B> {
  readonly name: string;
  sample(a: A, rng: Rng): B;
}

/** A kernel from its sampling function. */
export function kernel<A, B>(name: string, sample: (a: A, rng: Rng) => B): Kernel<A, B> {
  return { name, sample };
}

/** A deterministic morphism f: A → B seen as a kernel (a Dirac delta at f(a)). */
export function deterministic<A, B>(name: string, f: (a: A) => B): Kernel<A, B> {
  return { name, sample: (a) => f(a) };
}

/**
 * Kernel composition (the Chapman–Kolmogorov equation, by sampling): draw b ~ f(a), then
 * c ~ g(b). Each factor gets its own child stream so that inserting a factor does not
 * shift the randomness of the others.
 */
export function thenK<A, B, C>(f: Kernel<A, B>, g: Kernel<B, C>): Kernel<A, C> {
  return { name: `${f.name} >> ${g.name}`, sample: (a, rng) => g.sample(f.sample(a, rng.split()), rng.split()) };
}

/** Composite of any number of kernels, left to right. */
export function composeK<A>(...ks: Kernel<any, any>[]): Kernel<A, any> {
  if (ks.length === 0) return identityK<A>();
  return ks.reduce((f, g) => thenK(f, g)) as Kernel<A, any>;
}

export function identityK<A>(): Kernel<A, A> {
  return { name: 'id', sample: (a) => a };
}

/** The monoidal product f ⊗ g: independent samples on the two factors of a pair. */
export function tensorK<A, B, C, D>(f: Kernel<A, B>, g: Kernel<C, D>): Kernel<readonly [A, C], readonly [B, D]> {
  return { name: `${f.name} @ ${g.name}`, sample: ([a, c], rng) => [f.sample(a, rng.split()), g.sample(c, rng.split())] as const };
}

/** The copy map Δ: A → A ⊗ A of the comonoid on every object (deterministic). */
export function copyK<A>(): Kernel<A, readonly [A, A]> {
  return { name: 'copy', sample: (a) => [a, a] as const };
}

/** The discard (delete) map A → I, I the one-point object: marginalisation. */
export function discardK<A>(): Kernel<A, null> {
  return { name: 'discard', sample: () => null };
}

/** The symmetry A ⊗ B → B ⊗ A. */
export function swapK<A, B>(): Kernel<readonly [A, B], readonly [B, A]> {
  return { name: 'swap', sample: ([a, b]) => [b, a] as const };
}

/** Standard samplers as kernels: parameters in, a sample out. */
export const normalK: Kernel<readonly [number, number], number> = {
  name: 'normal',
  sample: ([mu, sigma], rng) => {
    if (!(sigma > 0)) throw new RangeArgError(`normal(μ,σ) needs σ > 0, got σ = ${sigma}`);
    return mu + sigma * rng.normal();
  },
};

export const bernoulliK: Kernel<number, number> = {
  name: 'bernoulli',
  sample: (p, rng) => {
    if (!(p >= 0 && p <= 1)) throw new RangeArgError(`bernoulli(p) needs p in [0, 1], got ${p}`);
    return rng.bernoulli(p);
  },
};
