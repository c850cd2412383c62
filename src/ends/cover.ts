import { FiniteCategory } from '../category/finite.js';
import type { Arrow } from '../category/finite.js';
import { FunctorError } from '../category/errors.js';
import { setDifunctor } from '../category/set-functor.js';
import type { SetDifunctor } from '../category/set-functor.js';

/**
 * A cover of a finite set of global points by patches, and the overlaps along which they
 * are glued. `overlaps[k] = [i, j, points]`: the points of patches i and j identified with
 * each other (normally U_i ∩ U_j; fewer when only some of it is to be glued).
 */
export interface Cover {
  /** The names of the global points. */
  readonly points: readonly string[];
  readonly patches: readonly (readonly number[])[];
  readonly overlaps: readonly (readonly [number, number, readonly number[]])[];
  readonly patchNames?: readonly string[];
}

/** The cover of the patches with every pairwise intersection as an overlap. */
export function coverOf(points: readonly string[], patches: readonly (readonly number[])[], patchNames?: readonly string[]): Cover {
  const overlaps: [number, number, number[]][] = [];
  for (let i = 0; i < patches.length; i++) {
    const Ui = new Set(patches[i]);
    for (let j = i + 1; j < patches.length; j++) {
      const W = patches[j]!.filter((t) => Ui.has(t));
      if (W.length) overlaps.push([i, j, W]);
    }
  }
  return { points, patches, overlaps, patchNames };
}

/**
 * The cover category (the Čech nerve up to pairwise overlaps): objects the patches U_i and the
 * overlaps U_i ∩ U_j, one arrow U_i ∩ U_j → U_i and one → U_j: a poset of height one, so the
 * only composites are with identities and the table is written down directly (the general
 * `categoryFromPoset` of the topos module builds the table through `finiteCategory`, which
 * checks the category laws over every composable pair and triple: too slow for the
 * hundreds of overlaps of an image). `pointsOf[c]` are the global points of object c.
 */
const MAX_COVER_ARROWS = 4000;

export interface CoverCategory {
  readonly cover: Cover;
  readonly category: FiniteCategory;
  readonly pointsOf: readonly (readonly number[])[];
}

export function coverCategory(cover: Cover): CoverCategory {
  const P = cover.patches.length;
  const name = (i: number): string => cover.patchNames?.[i] ?? `U${i}`;
  cover.patches.forEach((U, i) =>
    U.forEach((t) => {
      if (!(Number.isInteger(t) && t >= 0 && t < cover.points.length))
        throw new FunctorError(`patch ${name(i)} contains point ${t}, not one of the ${cover.points.length} global points`);
    }),
  );
  cover.overlaps.forEach(([i, j, W]) => {
    for (const k of [i, j]) {
      if (!(k >= 0 && k < P)) throw new FunctorError(`overlap names patch ${k}, but there are ${P} patches`);
      const U = new Set(cover.patches[k]);
      const t = W.find((p) => !U.has(p));
      if (t !== undefined) throw new FunctorError(`overlap ${name(i)}∩${name(j)} contains point ${cover.points[t] ?? t}, which is not in patch ${name(k)}`);
    }
  });
  const elements = [...cover.patches.map((_, i) => name(i)), ...cover.overlaps.map(([i, j]) => `${name(i)}∩${name(j)}`)];
  const n = elements.length;
  const arrows: Arrow[] = elements.map((e, c) => ({ name: `id_${e}`, dom: c, cod: c }));
  cover.overlaps.forEach(([i, j], k) => {
    arrows.push({ name: `${elements[P + k]}≤${name(i)}`, dom: P + k, cod: i });
    arrows.push({ name: `${elements[P + k]}≤${name(j)}`, dom: P + k, cod: j });
  });
  const m = arrows.length;
  if (m > MAX_COVER_ARROWS)
    throw new FunctorError(
      `the cover category has ${m} arrows (${P} patches, ${cover.overlaps.length} overlaps), more than ${MAX_COVER_ARROWS}: use larger patches or a larger hop`,
    );
  // the only composites are with identities: id ∘ f = f = f ∘ id (arrows 0..n−1 are the identities)
  const category = new FiniteCategory(
    elements,
    arrows,
    Array.from({ length: n }, (_, c) => c),
    (g, f) => (g < n ? f : g),
  );
  const pointsOf = [...cover.patches, ...cover.overlaps.map((o) => o[2])];
  return { cover, category, pointsOf };
}

/**
 * The functor of points of a cover, F(a, b) = points of b (constant in a; covariant along the
 * inclusions W → U). Its coend is the colimit of the cover diagram: the points of ⊔ U_i glued
 * along the overlaps — one class per global point when the overlaps are the full
 * intersections. Its free vector space R[F] is the functor of signals extended by zero, whose
 * coend map ⊕_i R^{U_i} → R^{points} is overlap-add. Functorial by construction (inclusions
 * compose); the laws are checked for covers of at most 300 arrows.
 */
export function pointFunctor(K: CoverCategory): SetDifunctor {
  const C = K.category;
  const position = K.pointsOf.map((ps) => new Map(ps.map((t, i) => [t, i])));
  return setDifunctor(
    {
      name: 'Pt',
      category: C,
      size: (_a, b) => K.pointsOf[b]!.length,
      element: (_a, b, x) => `${K.cover.points[K.pointsOf[b]![x]!]}@${C.objects[b]}`,
      left: (f, b) => K.pointsOf[b]!.map((_, i) => i),
      right: (_a, g) => K.pointsOf[C.arrows[g]!.dom]!.map((t) => position[C.arrows[g]!.cod]!.get(t)!),
    },
    { check: C.arrows.length <= 300 },
  ); // functorial by construction; checked while cheap
}

/** The global point each coend class lies over (FunctorError if a class mixes points). */
export function classPoints(K: CoverCategory, classes: readonly (readonly { object: number; element: number }[])[]): number[] {
  return classes.map((cls) => {
    const ts = new Set(cls.map((e) => K.pointsOf[e.object]![e.element]!));
    if (ts.size !== 1) throw new FunctorError(`a coend class mixes the global points ${[...ts].map((t) => K.cover.points[t]).join(', ')}`);
    return [...ts][0]!;
  });
}
