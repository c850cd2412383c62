import { RangeArgError } from '../../errors.js';
import { checkSections, glue, gluingThreshold } from './glue.js';
import type { CheckedSection, Conflict, GlobalSection, Section } from './glue.js';
import { maximalConsistentSubset } from './consistent.js';
import type { ConsistentSubset } from './consistent.js';

/**
 * Seed 000's sheaf demo: experts A and B agree within 0.1 and glue to a global prediction of
 * 0.70; expert C conflicts with A and no global section exists.
 */
export const SEED_EXPERTS: readonly Section[] = [
  { name: 'A', context: ['x1', 'x2'], prediction: 0.72 },
  { name: 'B', context: ['x2', 'x3'], prediction: 0.68 },
  { name: 'C', context: ['x1', 'x3'], prediction: 0.3 },
];

/**
 * Exercise 3 of seed 000: five experts over contexts x1…x4. A, B, C, D each see two of the
 * four regions (A and C are disjoint, so are B and D: the sheaf condition does not compare
 * them); E sees all four.
 */
export const EXERCISE3_EXPERTS: readonly Section[] = [
  { name: 'A', context: ['x1', 'x2'], prediction: 0.7 },
  { name: 'B', context: ['x2', 'x3'], prediction: 0.74 },
  { name: 'C', context: ['x3', 'x4'], prediction: 0.4 },
  { name: 'D', context: ['x4', 'x1'], prediction: 0.62 },
  { name: 'E', context: ['x1', 'x2', 'x3', 'x4'], prediction: 0.88 },
];

export const EXERCISE3_TOLERANCES: readonly number[] = [0.05, 0.15, 0.5];

/** What happens at one tolerance: which subsets (of two or more experts) glue. */
export interface GluingAtTolerance {
  readonly tolerance: number;
  /** Every subset of ≥ 2 sections, by names, and whether it glues (with its glued prediction). */
  readonly subsets: readonly { readonly names: readonly string[]; readonly glued: boolean; readonly prediction?: readonly number[] }[];
  /** The gluing subsets with no gluing proper superset. */
  readonly maximal: readonly (readonly string[])[];
  /** The overlapping pairs that disagree by more than ε (every failing subset contains one). */
  readonly conflicts: readonly Conflict[];
  readonly all: { readonly glued: boolean; readonly section?: GlobalSection };
  readonly maximum: ConsistentSubset;
}

/**
 * For each tolerance: glue every subset of two or more sections, list the maximal gluing
 * families and the conflicting pairs, and the maximum consistent subset. Subsets are
 * enumerated, so this is for small families (≤ 16 sections).
 */
export function gluingTable(sections: readonly Section[], tolerances: readonly number[]): GluingAtTolerance[] {
  const S = checkSections(sections);
  const n = S.length;
  if (n > 16) throw new RangeArgError(`gluingTable enumerates all subsets: at most 16 sections, got ${n}`);
  return tolerances.map((tolerance) => {
    const subsets: { mask: number; names: string[]; glued: boolean; prediction?: number[] }[] = [];
    for (let mask = 1; mask < 1 << n; mask++) {
      const members = S.filter((_, i) => mask & (1 << i));
      if (members.length < 2) continue;
      const r = glue(members, tolerance);
      subsets.push({ mask, names: members.map((s) => s.name), glued: r.glued, prediction: r.glued ? r.section.prediction : undefined });
    }
    const glues = new Set(subsets.filter((s) => s.glued).map((s) => s.mask));
    const maximal = subsets.filter((s) => s.glued && S.every((_, i) => s.mask & (1 << i) || !glues.has(s.mask | (1 << i)))).map((s) => s.names);
    const conflicts = pairConflicts(S, tolerance);
    const all = glue(S, tolerance);
    return {
      tolerance,
      subsets: subsets.map(({ names, glued, prediction }) => ({ names, glued, prediction })),
      maximal,
      conflicts,
      all: all.glued ? { glued: true, section: all.section } : { glued: false },
      maximum: maximalConsistentSubset(S, tolerance),
    };
  });
}

/** Every overlapping pair that disagrees by more than ε. */
function pairConflicts(S: readonly CheckedSection[], eps: number): Conflict[] {
  const out: Conflict[] = [];
  for (let i = 0; i < S.length; i++) {
    for (let j = i + 1; j < S.length; j++) {
      const r = glue([S[i]!, S[j]!], eps);
      if (!r.glued) out.push({ ...r.conflict, i, j });
    }
  }
  return out;
}

/** Seed 000's two gluing cases at ε = 0.1, and the smallest ε at which all three glue. */
export function seedGluingDemo(eps = 0.1): { agree: ReturnType<typeof glue>; conflict: ReturnType<typeof glue>; threshold: number } {
  const [a, b, c] = SEED_EXPERTS;
  return { agree: glue([a!, b!], eps), conflict: glue([a!, c!], eps), threshold: gluingThreshold(SEED_EXPERTS) };
}
