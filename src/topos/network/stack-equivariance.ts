import type { Rng } from '../../random/rng.js';
import { ToposError } from '../../category/errors.js';

/**
 * Small layers on vectors and the cyclic shift action, for measuring how far a layer is
 * from being a morphism of the stack (Belfiore–Bennequin §2.1–2.2: a CNN layer is
 * equivariant for the translation groups of its input and output, so the group presheaf
 * F(k) = ℤ/n_k with F along the layer sends the input shift to the output shift).
 */
export type VectorMap = (x: readonly number[]) => number[];

/** The cyclic shift (T_s x)_i = x_{(i − s) mod n}. */
export function cyclicShift(x: readonly number[], s: number): number[] {
  const n = x.length;
  return x.map((_, i) => x[(((i - s) % n) + n) % n]!);
}

/** Circular convolution with a kernel: y_i = Σ_j k_j x_{(i + j) mod n} (a 1-d CNN layer with periodic padding). */
export function circularConv(kernel: readonly number[]): VectorMap {
  return (x) => x.map((_, i) => kernel.reduce((s, k, j) => s + k * x[(i + j) % x.length]!, 0));
}

/** A dense layer y = W x (W given as rows). */
export function denseMap(W: readonly (readonly number[])[]): VectorMap {
  return (x) =>
    W.map((row) => {
      if (row.length !== x.length) throw new ToposError(`dense map expects ${row.length} inputs, got ${x.length}`);
      return row.reduce((s, w, j) => s + w * x[j]!, 0);
    });
}

/** Global average pooling: the mean, a vector of length 1. */
export const globalAveragePool: VectorMap = (x) => [x.reduce((a, b) => a + b, 0) / x.length];

/** Stride-2 subsampling y_i = x_{2i} (n even). */
export const subsample2: VectorMap = (x) => {
  if (x.length % 2) throw new ToposError(`stride-2 subsampling needs an even length, got ${x.length}`);
  return x.filter((_, i) => i % 2 === 0);
};

/**
 * The equivariance defect of f for the input action g·x and output action h·y on a set of
 * inputs: max |f(g·x) − h·f(x)|. Zero exactly when f commutes with the pair (g, h) on them,
 * i.e. when (f, g ↦ h) is a morphism of the stack at those points.
 */
export function equivarianceDefect(f: VectorMap, actIn: VectorMap, actOut: VectorMap, inputs: readonly (readonly number[])[]): number {
  let worst = 0;
  for (const x of inputs) {
    const a = f(actIn(x));
    const b = actOut(f(x));
    if (a.length !== b.length) throw new ToposError(`actions change the output length: ${a.length} vs ${b.length}`);
    a.forEach((v, i) => {
      worst = Math.max(worst, Math.abs(v - b[i]!));
    });
  }
  return worst;
}

/**
 * The defect of f under the shift by s on the input and by `outShift(s)` on the output
 * (the homomorphism F along the layer; undefined means the output does not move: invariance).
 */
export function shiftDefect(f: VectorMap, s: number, outShift: ((s: number) => number) | undefined, inputs: readonly (readonly number[])[]): number {
  return equivarianceDefect(
    f,
    (x) => cyclicShift(x, s),
    (y) => (outShift ? cyclicShift(y, outShift(s)) : [...y]),
    inputs,
  );
}

/** n random standard-normal vectors of length len. */
export function randomVectors(rng: Rng, n: number, len: number): number[][] {
  return Array.from({ length: n }, () => Array.from({ length: len }, () => rng.normal()));
}
