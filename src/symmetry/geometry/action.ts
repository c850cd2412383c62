import { symmetric } from '../group/group.js';
import type { Geometry } from './geometry.js';

/**
 * A finite geometry as a G-set: its points X = {0, …, N−1}, the group's generators as maps
 * X ⇀ X, and the invariant relation "query q may see key k" (all pairs unless a mask is
 * declared). A generator is a bijection between subsets of X (−1 where it is undefined): a
 * window of ℤ or ℤ² is not mapped onto itself by a shift, so the translations act partially —
 * the action of the ambient group restricted to the window — and the kernels the solver finds
 * are the restrictions to X×X of the invariant kernels on the ambient space.
 */
export interface FiniteAction {
  readonly points: number;
  readonly generators: readonly Int32Array[];
  /** The invariant relation on pairs: whether query q sees key k (undefined: every pair). */
  readonly visible?: (q: number, k: number) => boolean;
  /** What a pair looks like to a reader, as a small integer key (the pairs of one orbit share few keys), its text, and what the text is of. */
  readonly pairKey: (q: number, k: number) => number;
  readonly keyText: (key: number) => string;
  readonly keyOf: string;
}

/** The shift t ↦ t + s of a window of n positions (−1 where it leaves the window). */
const shift = (n: number, s: number): Int32Array => Int32Array.from({ length: n }, (_, t) => (t + s >= 0 && t + s < n ? t + s : -1));

/** The finite G-set of a geometry (not points(n), whose group is continuous). */
export function finiteAction(g: Exclude<Geometry, { kind: 'points' }>): FiniteAction {
  switch (g.kind) {
    case 'seq': {
      const T = g.T;
      return {
        points: T,
        generators: T > 1 ? [shift(T, 1)] : [],
        ...(g.causal ? { visible: (q: number, k: number) => k <= q } : {}),
        pairKey: (q, k) => k - q,
        keyText: (d) => String(d),
        keyOf: 'k − q',
      };
    }
    case 'cyclic': {
      const T = g.T;
      return {
        points: T,
        generators: T > 1 ? [Int32Array.from({ length: T }, (_, t) => (t + 1) % T)] : [],
        pairKey: (q, k) => (((k - q) % T) + T) % T,
        keyText: (d) => `${d} (mod ${T})`,
        keyOf: 'k − q',
      };
    }
    case 'grid': {
      const { H, W } = g;
      const N = H * W;
      const rowShift = Int32Array.from({ length: N }, (_, p) => (Math.floor(p / W) + 1 < H ? p + W : -1));
      const colShift = Int32Array.from({ length: N }, (_, p) => ((p % W) + 1 < W ? p + 1 : -1));
      const generators = [rowShift, colShift];
      if (g.d4) {
        // a quarter turn (r, c) ↦ (c, H−1−r) and the mirror (r, c) ↦ (r, W−1−c) of the square window
        generators.push(Int32Array.from({ length: N }, (_, p) => (p % W) * W + (H - 1 - Math.floor(p / W))));
        generators.push(Int32Array.from({ length: N }, (_, p) => Math.floor(p / W) * W + (W - 1 - (p % W))));
      }
      const span = 2 * W - 1;
      return {
        points: N,
        generators,
        pairKey: (q, k) => (Math.floor(k / W) - Math.floor(q / W) + H - 1) * span + ((k % W) - (q % W) + W - 1),
        keyText: (key) => `(${Math.floor(key / span) - (H - 1)},${(key % span) - (W - 1)})`,
        keyOf: 'k − q (rows, columns)',
      };
    }
    case 'set':
      return {
        points: g.n,
        generators: [...(symmetric(g.n).perms ?? [])],
        pairKey: (q, k) => (q === k ? 0 : 1),
        keyText: (key) => (key === 0 ? 'q = k (I)' : 'q ≠ k (11ᵀ − I)'),
        keyOf: '',
      };
  }
}
