import { agreesWithin, checkTolerance, normaliseSections, sectionDistance } from '../topos/gluing/glue.js';
import type { Section } from '../topos/gluing/glue.js';
import { setCoend } from './coend.js';
import { coverCategory, pointFunctor } from './cover.js';
import type { Cover } from './cover.js';

/** The coend of local sections glued only where they agree. */
export interface SectionsCoend {
  /** The global points: the union of the contexts. */
  readonly points: readonly (string | number)[];
  /** The coend classes, each as the global point it lies over and the sections it holds. */
  readonly classes: readonly { readonly point: string | number; readonly sections: readonly string[] }[];
  /** Exactly one class per global point: the local sections glue (the sheaf condition). */
  readonly onePerPoint: boolean;
  /** When they glue: the value over each point (the common prediction, here the mean of the members). */
  readonly values?: readonly (readonly number[])[];
}

/**
 * The link between coends and sheaf gluing (Topos I's `glue`, seed 000): local sections s_i
 * over contexts U_i (a prediction held constant over U_i) are glued along the overlaps where
 * they agree, W_ij = U_i ∩ U_j when ‖s_i − s_j‖∞ ≤ ε and ∅ otherwise. The coend of the point
 * functor of that cover has exactly one class per global point iff every overlapping pair
 * agrees (for ε = 0; for ε > 0 agreement within ε is not transitive and a chain of agreeing
 * pairs can merge a point that `glue` refuses) — and then each class is a point of the glued
 * global section.
 */
export function sectionsCoend(sections: readonly Section[], eps = 0): SectionsCoend {
  checkTolerance(eps);
  const S = normaliseSections(sections);
  const points: (string | number)[] = [];
  const index = new Map<string | number, number>();
  for (const s of S) for (const p of s.context) if (!index.has(p)) index.set(p, points.push(p) - 1);
  const patches = S.map((s) => [...s.context].map((p) => index.get(p)!));
  const overlaps: [number, number, number[]][] = [];
  for (let i = 0; i < S.length; i++) {
    for (let j = i + 1; j < S.length; j++) {
      const W = patches[i]!.filter((t) => S[j]!.context.has(points[t]!));
      if (W.length && agreesWithin(sectionDistance(S[i]!.prediction, S[j]!.prediction), eps)) overlaps.push([i, j, W]);
    }
  }
  const cover: Cover = { points: points.map(String), patches, overlaps, patchNames: uniqueNames(S.map((s) => s.name)) };
  const K = coverCategory(cover);
  const Q = setCoend(pointFunctor(K));
  const classes = Q.classes.map((cls) => ({
    point: points[K.pointsOf[cls[0]!.object]![cls[0]!.element]!]!,
    sections: [...new Set(cls.filter((e) => e.object < S.length).map((e) => S[e.object]!.name))],
  }));
  const onePerPoint = classes.length === points.length;
  const values = onePerPoint
    ? Q.classes.map((cls) => {
        const members = cls.filter((e) => e.object < S.length).map((e) => S[e.object]!.prediction);
        return Array.from(members[0]!, (_, k) => members.reduce((a, p) => a + p[k]!, 0) / members.length);
      })
    : undefined;
  return { points, classes, onePerPoint, values };
}

/** Names made distinct by suffixing repeats with their position (poset elements must differ). */
function uniqueNames(names: readonly string[]): string[] {
  return names.map((n, i) => (names.indexOf(n) === i ? n : `${n}#${i + 1}`));
}
