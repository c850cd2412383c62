import { DataError, RangeArgError, ShapeError } from '../../errors.js';

/**
 * A local section of the presheaf of predictions: an expert's prediction vector over its
 * context (the open set U it sees — feature names, regions, data sources). Seed 000, the
 * topos section: "each model acts as an expert over a specific input context (an open set)".
 */
export interface Section {
  readonly name?: string;
  /** The open set U: the points (features, regions, …) the expert covers. */
  readonly context: readonly (string | number)[];
  /** The section's value: a prediction vector (a number is the vector of length 1). */
  readonly prediction: number | readonly number[] | Float64Array | Float32Array;
}

/** A section checked and normalised: prediction as Float64Array, context as a Set. */
export interface CheckedSection {
  readonly name: string;
  readonly context: ReadonlySet<string | number>;
  readonly prediction: Float64Array;
}

/** The global section obtained by gluing: on the union of the contexts, the mean prediction. */
export interface GlobalSection {
  readonly context: readonly (string | number)[];
  readonly prediction: number[];
  /** Indices of the sections that were glued. */
  readonly members: readonly number[];
}

/** A pair of sections whose contexts overlap but whose predictions differ by more than ε. */
export interface Conflict {
  readonly i: number;
  readonly j: number;
  readonly names: readonly [string, string];
  /** Their distance ‖pᵢ − pⱼ‖∞. */
  readonly distance: number;
}

export type GlueResult =
  { readonly glued: true; readonly section: GlobalSection } | { readonly glued: false; readonly conflict: Conflict; readonly conflicts: number };

/** Agreement within ε forgives this much rounding, so that 0.7 and 0.8 agree at ε = 0.1. */
export const AGREEMENT_SLACK = 1e-12;

/** Throws a RangeArgError unless ε is a finite number ≥ 0. */
export function checkTolerance(eps: number): number {
  if (typeof eps !== 'number' || !(eps >= 0) || !Number.isFinite(eps)) {
    throw new RangeArgError(`sheaf tolerance ε must be a finite number ≥ 0, got ${eps}`);
  }
  return eps;
}

/**
 * Checks sections: every prediction finite and all of the same length (they are values of
 * one presheaf). Throws a ShapeError naming the first section whose length differs.
 */
export function checkSections(sections: readonly Section[]): CheckedSection[] {
  let dim = -1;
  let first = '';
  return sections.map((s, i) => {
    const name = s.name ?? `#${i + 1}`;
    const p = typeof s.prediction === 'number' ? Float64Array.of(s.prediction) : Float64Array.from(s.prediction);
    if (dim < 0) {
      dim = p.length;
      first = name;
    } else if (p.length !== dim) {
      throw new ShapeError(
        `section ${name} has a prediction of length ${p.length} but section ${first} has length ${dim}; all predictions must have the same length`,
      );
    }
    p.forEach((v, k) => {
      if (!Number.isFinite(v)) throw new DataError(`section ${name}: prediction component ${k + 1} is ${v}; predictions must be finite numbers`);
    });
    return { name, context: new Set(s.context), prediction: p };
  });
}

/** ‖p − q‖∞: the largest componentwise difference. Agreement within ε means every component within ε. */
export function sectionDistance(p: ArrayLike<number>, q: ArrayLike<number>): number {
  let d = 0;
  for (let k = 0; k < p.length; k++) d = Math.max(d, Math.abs(p[k]! - q[k]!));
  return d;
}

/** Whether two contexts (open sets) intersect. */
export function contextsOverlap(u: ReadonlySet<string | number>, v: ReadonlySet<string | number>): boolean {
  const [small, big] = u.size <= v.size ? [u, v] : [v, u];
  for (const p of small) if (big.has(p)) return true;
  return false;
}

/** Whether d ≤ ε (with rounding slack). */
export function agreesWithin(d: number, eps: number): boolean {
  return d <= eps + AGREEMENT_SLACK;
}

/**
 * The agreement matrix: entry (i, j) is ‖pᵢ − pⱼ‖∞ when the contexts of i and j overlap, and
 * null when they do not (the sheaf condition says nothing there). Plain arrays, for plotting.
 */
export function agreementMatrix(sections: readonly Section[] | readonly CheckedSection[]): (number | null)[][] {
  const S = normaliseSections(sections);
  return S.map((a, i) => S.map((b, j) => (i === j ? 0 : contextsOverlap(a.context, b.context) ? sectionDistance(a.prediction, b.prediction) : null)));
}

/**
 * The compatibility graph at tolerance ε: i ~ j when their contexts are disjoint or their
 * predictions agree within ε. A family glues iff it is a clique of this graph.
 */
export function compatibilityGraph(sections: readonly CheckedSection[], eps: number): Uint8Array[] {
  const n = sections.length;
  const adj = Array.from({ length: n }, () => new Uint8Array(n));
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = sections[i]!,
        b = sections[j]!;
      const ok = !contextsOverlap(a.context, b.context) || agreesWithin(sectionDistance(a.prediction, b.prediction), eps);
      adj[i]![j] = adj[j]![i] = ok ? 1 : 0;
    }
  }
  return adj;
}

/**
 * The smallest ε at which the sections glue: the largest disagreement over overlapping
 * pairs (0 for fewer than two sections). The disagreement score of an ensemble.
 */
export function gluingThreshold(sections: readonly Section[] | readonly CheckedSection[]): number {
  const S = normaliseSections(sections);
  let worst = 0;
  for (let i = 0; i < S.length; i++) {
    for (let j = i + 1; j < S.length; j++) {
      if (contextsOverlap(S[i]!.context, S[j]!.context)) worst = Math.max(worst, sectionDistance(S[i]!.prediction, S[j]!.prediction));
    }
  }
  return worst;
}

/**
 * Sheaf gluing (seed 000, the topos section; the gluing axiom of a sheaf): if every pair of
 * sections whose contexts overlap agrees within ε, they glue to one global section over the
 * union of the contexts, whose prediction is their mean; otherwise there is no global section
 * and the most disagreeing overlapping pair is returned.
 */
export function glue(sections: readonly Section[] | readonly CheckedSection[], eps: number): GlueResult {
  checkTolerance(eps);
  const S = normaliseSections(sections);
  if (S.length === 0) throw new RangeArgError('glue needs at least one section');
  let worst: Conflict | undefined;
  let conflicts = 0;
  for (let i = 0; i < S.length; i++) {
    for (let j = i + 1; j < S.length; j++) {
      const a = S[i]!,
        b = S[j]!;
      if (!contextsOverlap(a.context, b.context)) continue;
      const d = sectionDistance(a.prediction, b.prediction);
      if (agreesWithin(d, eps)) continue;
      conflicts++;
      if (!worst || d > worst.distance) worst = { i, j, names: [a.name, b.name], distance: d };
    }
  }
  if (worst) return { glued: false, conflict: worst, conflicts };
  return {
    glued: true,
    section: meanSection(
      S,
      S.map((_, i) => i),
    ),
  };
}

/** The global section of the members: union of contexts, mean prediction. */
export function meanSection(S: readonly CheckedSection[], members: readonly number[]): GlobalSection {
  const dim = S[0]?.prediction.length ?? 0;
  const mean = new Array<number>(dim).fill(0);
  const context = new Set<string | number>();
  for (const i of members) {
    S[i]!.prediction.forEach((v, k) => (mean[k]! += v / members.length));
    S[i]!.context.forEach((p) => context.add(p));
  }
  return { context: [...context], prediction: mean, members: [...members] };
}

function isChecked(s: Section | CheckedSection): s is CheckedSection {
  return s.context instanceof Set && s.prediction instanceof Float64Array && typeof s.name === 'string';
}

/** Checks raw sections; passes already checked ones through. */
export function normaliseSections(sections: readonly Section[] | readonly CheckedSection[]): CheckedSection[] {
  return sections.every(isChecked) ? [...(sections as readonly CheckedSection[])] : checkSections(sections as readonly Section[]);
}
