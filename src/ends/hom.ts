import type { FiniteCategory } from '../category/finite.js';
import { mat } from '../linalg/matrix.js';
import type { Mat } from '../linalg/matrix.js';
import { setDifunctor } from '../category/set-functor.js';
import type { SetDifunctor } from '../category/set-functor.js';
import { vectDifunctor } from '../category/vect-functor.js';
import type { VectDifunctor } from '../category/vect-functor.js';

/**
 * The hom functor Hom: C^op × C → Set (Mac Lane §II.3): Hom(a, b) is the set of arrows a → b,
 * Hom(f, b)(h) = h∘f and Hom(a, g)(h) = g∘h. Its end is the set of natural transformations
 * id ⇒ id (for a group: its centre); its coend is the set of arrows c → c modulo h∘f ~ f∘h
 * (for a group: its conjugacy classes; for a poset: one class per object).
 */
export function homFunctor(C: FiniteCategory, opts: { check?: boolean } = {}): SetDifunctor {
  const n = C.objects.length;
  const homs: number[][] = Array.from({ length: n * n }, () => []);
  C.arrows.forEach((a, f) => homs[a.dom * n + a.cod]!.push(f));
  const position = new Int32Array(C.arrows.length);
  for (const h of homs) h.forEach((f, i) => (position[f] = i));
  return setDifunctor(
    {
      name: 'Hom',
      category: C,
      size: (a, b) => homs[a * n + b]!.length,
      element: (a, b, x) => C.arrows[homs[a * n + b]![x]!]!.name,
      left: (f, b) => homs[C.arrows[f]!.cod * n + b]!.map((h) => position[C.compose(h, f)]!),
      right: (a, g) => homs[a * n + C.arrows[g]!.dom]!.map((h) => position[C.compose(g, h)]!),
    },
    opts,
  );
}

/** The matrix of a function between finite sets on the free vector spaces: e_x ↦ e_{t(x)}. */
export function functionMatrix(table: Int32Array, to: number): Mat {
  const M = mat(to, table.length);
  table.forEach((y, x) => (M.data[y * table.length + x] = 1));
  return M;
}

/**
 * The free vector space on a set-valued functor, `R[F]: C^op × C → Vect`, `R[F](a, b) = R^{F(a, b)}`
 * with the 0/1 matrices of F's functions. Free constructions preserve colimits, so
 * `∫^c R[F](c, c) = R[∫^c F(c, c)]`: the vector coend has one dimension per class.
 */
export function linearize(F: SetDifunctor): VectDifunctor {
  const C = F.category;
  return vectDifunctor(
    {
      name: `R[${F.name}]`,
      category: C,
      dim: (a, b) => F.size(a, b),
      left: (f, b) => functionMatrix(F.left(f, b), F.size(C.arrows[f]!.dom, b)),
      right: (a, g) => functionMatrix(F.right(a, g), F.size(a, C.arrows[g]!.cod)),
    },
    { check: false },
  );
}
