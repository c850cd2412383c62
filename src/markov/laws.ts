import { checkSamples } from './expectation.js';
import { copyK, discardK, identityK, swapK, tensorK, thenK } from './kernel.js';
import type { Kernel } from './kernel.js';
import { Rng } from '../random/rng.js';

/** How two samples are compared (default: deep structural equality of numbers, arrays, pairs). */
export type Eq<A> = (x: A, y: A) => boolean;

export function deepEqual(x: unknown, y: unknown): boolean {
  if (Object.is(x, y)) return true;
  if (ArrayBuffer.isView(x) && ArrayBuffer.isView(y))
    return deepEqual(Array.from(x as unknown as ArrayLike<number>), Array.from(y as unknown as ArrayLike<number>));
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => deepEqual(v, y[i]));
  return false;
}

export interface KernelLawReport {
  readonly law: string;
  /** Samples on which the two sides agreed. */
  readonly agreed: number;
  readonly n: number;
  readonly ok: boolean;
}

/**
 * The comonoid laws of copy Δ and discard ε on A, checked on n samples a ~ source (seed 000:
 * every object of a Markov category is a commutative comonoid):
 * counit (ε ⊗ id)∘Δ = id = (id ⊗ ε)∘Δ, coassociativity (Δ ⊗ id)∘Δ = (id ⊗ Δ)∘Δ,
 * cocommutativity swap∘Δ = Δ. Each side is a kernel composite run on the same sample.
 */
export function comonoidLaws<A>(source: Kernel<null, A>, n: number, rng: Rng, eq: Eq<A> = deepEqual): KernelLawReport[] {
  checkSamples(n);
  const copy = copyK<A>(),
    del = discardK<A>(),
    id = identityK<A>();
  const counitL = thenK(
    copy,
    kernelOf(tensorK(del, id), ([, a]) => a),
  );
  const counitR = thenK(
    copy,
    kernelOf(tensorK(id, del), ([a]) => a),
  );
  const assocL = thenK(
    copy,
    kernelOf(tensorK(copy, id), ([[a, b], c]) => [a, b, c] as A[]),
  );
  const assocR = thenK(
    copy,
    kernelOf(tensorK(id, copy), ([a, [b, c]]) => [a, b, c] as A[]),
  );
  const comm = thenK(copy, swapK<A, A>());
  const results = { counitL: 0, counitR: 0, coassociativity: 0, cocommutativity: 0 };
  for (let i = 0; i < n; i++) {
    const a = source.sample(null, rng);
    if (eq(counitL.sample(a, rng), a)) results.counitL++;
    if (eq(counitR.sample(a, rng), a)) results.counitR++;
    const l = assocL.sample(a, rng),
      r = assocR.sample(a, rng);
    if (l.every((v, j) => eq(v, r[j]!))) results.coassociativity++;
    const s = comm.sample(a, rng),
      c = copy.sample(a, rng);
    if (eq(s[0], c[0]) && eq(s[1], c[1])) results.cocommutativity++;
  }
  return Object.entries(results).map(([law, agreed]) => ({ law, agreed, n, ok: agreed === n }));
}

/** Post-composes a kernel with a deterministic reshaping of its output. */
function kernelOf<A, B, C>(k: Kernel<A, B>, f: (b: B) => C): Kernel<A, C> {
  return { name: k.name, sample: (a, rng) => f(k.sample(a, rng)) };
}

/**
 * Copying commutes with f exactly when f is deterministic (Fritz 2020, Def. 10.1):
 * Δ∘f = (f ⊗ f)∘Δ. Returns the fraction of n draws on which the two pairs on the right-hand
 * side agree (the left-hand side always gives equal pairs): 1 for a deterministic f, below 1
 * for a genuinely stochastic one (½ for a fair coin).
 */
export function copyNaturality<A, B>(f: Kernel<A, B>, a: A, n: number, rng: Rng, eq: Eq<B> = deepEqual): number {
  checkSamples(n);
  const right = thenK(copyK<A>(), tensorK(f, f));
  let same = 0;
  for (let i = 0; i < n; i++) {
    const [b1, b2] = right.sample(a, rng);
    if (eq(b1, b2)) same++;
  }
  return same / n;
}

/**
 * Discard is natural for every kernel (f then ε = ε: a Markov kernel's output distribution
 * has total mass 1). On samples: f's composite with discard returns the unit for every draw.
 */
export function discardNaturality<A, B>(f: Kernel<A, B>, a: A, n: number, rng: Rng): boolean {
  checkSamples(n);
  const k = thenK(f, discardK<B>());
  for (let i = 0; i < n; i++) if (k.sample(a, rng) !== null) return false;
  return true;
}
