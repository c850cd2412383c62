import type { FiniteCategory } from './finite.js';
import { matmul } from '../linalg/matrix.js';
import type { Mat } from '../linalg/matrix.js';
import { FunctorError } from './errors.js';

/**
 * A functor F: C^op × C → Vect_R on a finite category C, presented like `SetDifunctor` by its
 * two one-variable actions (Mac Lane §II.3 Prop. 1), now real matrices acting on column
 * vectors:
 *
 *   F(f, b): F(cod f, b) → F(dom f, b)   a dim F(dom f, b) × dim F(cod f, b) matrix
 *   F(a, g): F(a, dom g) → F(a, cod g)   a dim F(a, cod g) × dim F(a, dom g) matrix
 */
export interface VectDifunctor {
  readonly name: string;
  readonly category: FiniteCategory;
  /** dim F(a, b). */
  dim(a: number, b: number): number;
  /** F(f, id_b). */
  left(f: number, b: number): Mat;
  /** F(id_a, g). */
  right(a: number, g: number): Mat;
}

export interface VectDifunctorSpec {
  readonly name: string;
  readonly category: FiniteCategory;
  dim(a: number, b: number): number;
  left(f: number, b: number): Mat;
  right(a: number, g: number): Mat;
}

export interface VectCheckOptions {
  /** Check the functor laws (default true; cost O(|arrows|²) matrix products). */
  check?: boolean;
  /** Entries may differ by tol·(1 + max |entry|) (default 1e-9). */
  tol?: number;
}

/**
 * Builds a vector-valued functor C^op × C → Vect, checking (on first use, memoised) that
 * every F(f, b) and F(a, g) has the size its ends demand, and (unless `check: false`) the
 * functor laws with `checkVectDifunctor`.
 */
export function vectDifunctor(spec: VectDifunctorSpec, opts: VectCheckOptions = {}): VectDifunctor {
  const C = spec.category;
  const n = C.objects.length;
  const dims = new Int32Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const d = spec.dim(a, b);
      if (!(Number.isInteger(d) && d >= 0)) throw new FunctorError(`${spec.name}(${C.objects[a]}, ${C.objects[b]}) must have a dimension ≥ 0, got ${d}`);
      dims[a * n + b] = d;
    }
  }
  const leftCache = new Map<number, Mat>();
  const rightCache = new Map<number, Mat>();
  const sized = (M: Mat, rows: number, cols: number, where: () => string): Mat => {
    if (M.rows !== rows || M.cols !== cols) throw new FunctorError(`${where()} must be a ${rows}×${cols} matrix but is ${M.rows}×${M.cols}`);
    if (M.data.length !== rows * cols) throw new FunctorError(`${where()} has ${M.data.length} entries, expected ${rows * cols}`);
    return M;
  };
  const F: VectDifunctor = {
    name: spec.name,
    category: C,
    dim: (a, b) => dims[a * n + b]!,
    left(f, b) {
      const key = f * n + b;
      let M = leftCache.get(key);
      if (!M) {
        const { dom, cod } = C.arrows[f]!;
        M = sized(
          spec.left(f, b),
          dims[dom * n + b]!,
          dims[cod * n + b]!,
          () =>
            `${spec.name}(${C.describe(f)}, ${C.objects[b]}): ${spec.name}(${C.objects[cod]}, ${C.objects[b]}) → ${spec.name}(${C.objects[dom]}, ${C.objects[b]})`,
        );
        leftCache.set(key, M);
      }
      return M;
    },
    right(a, g) {
      const key = a * C.arrows.length + g;
      let M = rightCache.get(key);
      if (!M) {
        const { dom, cod } = C.arrows[g]!;
        M = sized(
          spec.right(a, g),
          dims[a * n + cod]!,
          dims[a * n + dom]!,
          () =>
            `${spec.name}(${C.objects[a]}, ${C.describe(g)}): ${spec.name}(${C.objects[a]}, ${C.objects[dom]}) → ${spec.name}(${C.objects[a]}, ${C.objects[cod]})`,
        );
        rightCache.set(key, M);
      }
      return M;
    },
  };
  if (opts.check !== false) checkVectDifunctor(F, opts.tol);
  return F;
}

/** The largest entrywise difference of two matrices of the same size, relative to their scale. */
function mismatch(p: Mat, q: Mat): number {
  let d = 0,
    s = 0;
  for (let i = 0; i < p.data.length; i++) {
    d = Math.max(d, Math.abs(p.data[i]! - q.data[i]!));
    s = Math.max(s, Math.abs(p.data[i]!), Math.abs(q.data[i]!));
  }
  return d / (1 + s);
}

function isIdentity(M: Mat, tol: number): boolean {
  for (let i = 0; i < M.rows; i++) for (let j = 0; j < M.cols; j++) if (Math.abs(M.data[i * M.cols + j]! - (i === j ? 1 : 0)) > tol) return false;
  return true;
}

/**
 * The laws of Mac Lane §II.3 Prop. 1 for matrices, within `tol`: identities act as identity
 * matrices, F(g∘f, b) = F(f, b)·F(g, b), F(a, g∘f) = F(a, g)·F(a, f), and the two actions
 * commute. Throws a FunctorError naming the arrows and objects where a law fails.
 */
export function checkVectDifunctor(F: VectDifunctor, tol = 1e-9): void {
  const C = F.category;
  const n = C.objects.length;
  const m = C.arrows.length;
  const o = (c: number): string => C.objects[c]!;
  for (let c = 0; c < n; c++) {
    const id = C.identities[c]!;
    for (let b = 0; b < n; b++) {
      if (!isIdentity(F.left(id, b), tol)) throw new FunctorError(`${F.name} is not functorial: ${F.name}(id_${o(c)}, ${o(b)}) is not the identity matrix`);
      if (!isIdentity(F.right(b, id), tol)) throw new FunctorError(`${F.name} is not functorial: ${F.name}(${o(b)}, id_${o(c)}) is not the identity matrix`);
    }
  }
  for (let f = 0; f < m; f++) {
    for (const g of C.arrowsFrom(C.arrows[f]!.cod)) {
      const gf = C.compose(g, f);
      const name = `${C.arrows[g]!.name}∘${C.arrows[f]!.name}`;
      for (let b = 0; b < n; b++) {
        const e1 = mismatch(F.left(gf, b), matmul(F.left(f, b), F.left(g, b)));
        if (e1 > tol)
          throw new FunctorError(
            `${F.name} is not functorial in its first (contravariant) slot at ${name}: ${F.name}(${name}, ${o(b)}) ≠ ${F.name}(${C.arrows[f]!.name}, ${o(b)})·${F.name}(${C.arrows[g]!.name}, ${o(b)}) (relative mismatch ${e1.toExponential(2)})`,
          );
        const e2 = mismatch(F.right(b, gf), matmul(F.right(b, g), F.right(b, f)));
        if (e2 > tol)
          throw new FunctorError(
            `${F.name} is not functorial in its second slot at ${name}: ${F.name}(${o(b)}, ${name}) ≠ ${F.name}(${o(b)}, ${C.arrows[g]!.name})·${F.name}(${o(b)}, ${C.arrows[f]!.name}) (relative mismatch ${e2.toExponential(2)})`,
          );
      }
    }
  }
  for (let f = 0; f < m; f++) {
    const { dom: a, cod: a2 } = C.arrows[f]!;
    for (let g = 0; g < m; g++) {
      const { dom: b, cod: b2 } = C.arrows[g]!;
      const e = mismatch(matmul(F.right(a, g), F.left(f, b)), matmul(F.left(f, b2), F.right(a2, g)));
      if (e > tol)
        throw new FunctorError(
          `${F.name} is not a bifunctor: its two actions do not commute at f = ${C.describe(f)}, g = ${C.describe(g)} (relative mismatch ${e.toExponential(2)})`,
        );
    }
  }
}
