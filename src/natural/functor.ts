import { RangeArgError, ShapeError } from '../errors.js';
import { Rng } from '../random/rng.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import { applyAffine, fitAffine } from '../linalg/affine.js';
import type { AffineMap } from '../linalg/affine.js';

/**
 * The small category of inputs (seed 000, §Natural transformations): one object, the
 * input space X = ℝᵈ (inhabited by a data set), and as arrows f: X → X the input
 * transformations we care about — augmentations, permutations of features, noise. Noise
 * is drawn once from a seed, so each arrow is a fixed function. Composition is composition
 * of functions; `identity` is the identity arrow.
 */
export interface InputMorphism {
  readonly name: string;
  apply(x: Tensor): Tensor;
}

export const identity: InputMorphism = { name: 'identity', apply: (x) => x };

/** x ↦ x + ε with ε ~ N(0, std²) drawn from `seed` (the same ε for the same row index). */
export function gaussianNoise(std: number, seed = 0): InputMorphism {
  if (!(std >= 0)) throw new RangeArgError(`gaussianNoise: std must be ≥ 0, got ${std}`);
  return {
    name: `noise(${std})`,
    apply: (x) => {
      const rng = new Rng(seed);
      const y = x.clone();
      for (let i = 0; i < y.size; i++) y.data[i]! += std * rng.normal();
      return y;
    },
  };
}

/** Reorders the features of every sample: y_j = x_{perm[j]}. */
export function permuteFeatures(perm: readonly number[]): InputMorphism {
  const ok = [...perm].sort((a, b) => a - b).every((v, i) => v === i);
  if (!ok) throw new RangeArgError(`permuteFeatures: [${perm.join(',')}] is not a permutation of 0..${perm.length - 1}`);
  return {
    name: `permute(${perm.join(',')})`,
    apply: (x) => {
      const d = x.size / x.batch;
      if (d !== perm.length) throw new ShapeError(`permute(${perm.join(',')}) expects ${perm.length} features but got ${d}`);
      const y = Tensor.zeros(x.shape, x.dtype);
      for (let r = 0; r < x.batch; r++) for (let j = 0; j < d; j++) y.data[r * d + j] = x.data[r * d + perm[j]!]!;
      return y;
    },
  };
}

/** x ↦ s·x. */
export function scale(s: number): InputMorphism {
  return {
    name: `scale(${s})`,
    apply: (x) => {
      const y = x.clone();
      for (let i = 0; i < y.size; i++) y.data[i]! *= s;
      return y;
    },
  };
}

/** Rotation of the first two features by `angle` radians (the rest unchanged). */
export function rotate2d(angle: number): InputMorphism {
  const c = Math.cos(angle),
    s = Math.sin(angle);
  return {
    name: `rotate(${Number(angle.toFixed(4))})`,
    apply: (x) => {
      const d = x.size / x.batch;
      if (d < 2) throw new ShapeError(`rotate needs at least 2 features, got ${d}`);
      const y = x.clone();
      for (let r = 0; r < x.batch; r++) {
        const a = x.data[r * d]!,
          b = x.data[r * d + 1]!;
        y.data[r * d] = c * a - s * b;
        y.data[r * d + 1] = s * a + c * b;
      }
      return y;
    },
  };
}

/**
 * A representation functor F: (inputs, transformations) → (feature spaces, maps).
 * On the object, F(X) = ℝᵖ, inhabited by the features h(x) of the data; on an arrow f,
 * F(f): ℝᵖ → ℝᵖ is the map of features that f induces. A network's hidden layer h is
 * rarely exactly equivariant, so F(f) is the affine map that best satisfies
 * F(f)(h(x)) ≈ h(f(x)) over the data (Lenc & Vedaldi 2015, "Understanding image
 * representations by measuring their equivariance and equivalence", eq. 1), unless an
 * exact action is supplied. `actionResidual` records how far h is from that.
 */
export interface RepresentationFunctor {
  readonly name: string;
  /** p, the dimension of the feature space. */
  readonly dim: number;
  /** h: the object part on data, [N, d] → [N, p] (float64). */
  features(x: Tensor): Float64Array;
  /** F(f): the arrow part, as a map on feature vectors, determined on the data x. */
  action(f: InputMorphism, x: Tensor): { map: (h: Float64Array, rows: number) => Float64Array; residual: number };
}

function identityMap(p: number): AffineMap {
  const W = new Float64Array(p * p);
  for (let i = 0; i < p; i++) W[i * p + i] = 1;
  return { W, b: new Float64Array(p), p, q: p };
}

/** The functor of a representation h = the first layers of a model (or any morphism into features). */
export function representationFunctor(
  name: string,
  h: Para,
  theta: readonly Tensor[],
  opts: { exact?: (f: InputMorphism) => AffineMap | undefined } = {},
): RepresentationFunctor {
  const feats = (x: Tensor): Float64Array => Float64Array.from(h.run(theta, x).data);
  const dim = h.cod ? h.cod.reduce((a, b) => a * b, 1) : -1;
  return {
    name,
    get dim() {
      if (dim < 0) throw new ShapeError(`${name}: the representation ${h} has no fixed output shape; fix its domain first`);
      return dim;
    },
    features: feats,
    action(f, x) {
      const H = feats(x),
        Hf = feats(f.apply(x));
      const p = H.length / x.batch;
      // functoriality: F(id) = id exactly; other arrows by exact action or least squares
      const exact = f === identity ? identityMap(p) : opts.exact?.(f);
      const A = exact ?? fitAffine(H, Hf, x.batch, p, p, 1e-9, true);
      const pred = applyAffine(A, H, x.batch);
      let res = 0,
        norm = 0;
      for (let i = 0; i < pred.length; i++) {
        res += (pred[i]! - Hf[i]!) ** 2;
        norm += Hf[i]! ** 2;
      }
      return { map: (v, rows) => applyAffine(A, v, rows), residual: Math.sqrt(res / Math.max(norm, 1e-300)) };
    },
  };
}
