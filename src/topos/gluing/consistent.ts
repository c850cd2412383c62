import { RangeArgError } from '../../errors.js';
import { checkTolerance, compatibilityGraph, meanSection, normaliseSections, contextsOverlap, agreesWithin } from './glue.js';
import type { CheckedSection, GlobalSection, Section } from './glue.js';

/** The largest family of sections that glues, and how it was found. */
export interface ConsistentSubset {
  /** Indices of the members, ascending. */
  readonly members: readonly number[];
  readonly names: readonly string[];
  /**
   * `scalar-sweep` (exact, O(n log n)), `branch-and-bound` (exact maximum clique) or
   * `greedy` (an approximation: a consistent family, not necessarily the largest).
   */
  readonly method: 'scalar-sweep' | 'branch-and-bound' | 'greedy';
  readonly exact: boolean;
  /** The glued section of the members. */
  readonly section: GlobalSection;
}

/** Above this many sections with vector predictions, `maximalConsistentSubset` switches to the greedy approximation. */
export const EXACT_CLIQUE_LIMIT = 48;

/**
 * Exercise 3 of seed 000, "return the maximum consistent subset of sections rather than None":
 * the largest family of sections that satisfies the sheaf condition at tolerance ε.
 *
 * - Scalar predictions whose contexts all overlap: pairwise agreement within ε means all
 *   values lie in a window of width ε, so a sorted sweep finds the largest family exactly in
 *   O(n log n) (`maxConsistentScalars`).
 * - Otherwise a family glues iff it is a clique of the compatibility graph (`compatibility`),
 *   and the largest one is a maximum clique: found exactly by branch and bound
 *   (`maximumClique`) for up to `exactLimit` sections (default 48), beyond that approximated
 *   greedily (`greedyClique`, reported with `exact: false`).
 */
export function maximalConsistentSubset(
  sections: readonly Section[] | readonly CheckedSection[],
  eps: number,
  opts: { exactLimit?: number } = {},
): ConsistentSubset {
  checkTolerance(eps);
  const S = normaliseSections(sections);
  if (S.length === 0) throw new RangeArgError('maximalConsistentSubset needs at least one section');
  const limit = opts.exactLimit ?? EXACT_CLIQUE_LIMIT;
  let members: number[];
  let method: ConsistentSubset['method'];
  if (S[0]!.prediction.length === 1 && allOverlap(S)) {
    members = maxConsistentScalars(
      S.map((s) => s.prediction[0]!),
      eps,
    );
    method = 'scalar-sweep';
  } else if (S.length <= limit) {
    members = maximumClique(compatibilityGraph(S, eps));
    method = 'branch-and-bound';
  } else {
    members = greedyClique(compatibilityGraph(S, eps));
    method = 'greedy';
  }
  members.sort((a, b) => a - b);
  return { members, names: members.map((i) => S[i]!.name), method, exact: method !== 'greedy', section: meanSection(S, members) };
}

/** Whether every pair of contexts overlaps: O(total size) when they share a common point, else pairwise. */
function allOverlap(S: readonly CheckedSection[]): boolean {
  const common = new Set(S[0]!.context);
  for (const s of S) for (const p of common) if (!s.context.has(p)) common.delete(p);
  if (common.size > 0) return true;
  for (let i = 0; i < S.length; i++) for (let j = i + 1; j < S.length; j++) if (!contextsOverlap(S[i]!.context, S[j]!.context)) return false;
  return true;
}

/**
 * The largest set of values whose pairwise differences are all ≤ ε: sort, then slide a
 * window [vₗ, vᵣ] with vᵣ − vₗ ≤ ε (two pointers). O(n log n). Returns indices into `values`
 * (the leftmost largest window).
 */
export function maxConsistentScalars(values: ArrayLike<number>, eps: number): number[] {
  checkTolerance(eps);
  const order = Array.from({ length: values.length }, (_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
  let bestL = 0,
    bestR = -1,
    l = 0;
  for (let r = 0; r < order.length; r++) {
    while (!agreesWithin(values[order[r]!]! - values[order[l]!]!, eps)) l++;
    if (r - l > bestR - bestL) {
      bestL = l;
      bestR = r;
    }
  }
  return order.slice(bestL, bestR + 1);
}

/**
 * Greedy sequential colouring of the candidate vertices P (Tomita & Seki's MCQ, 2003): vertices
 * reordered by colour class, and for each position the number of colours used so far — an
 * upper bound on the size of a clique among the vertices up to that position.
 */
function colourSort(adj: readonly Uint8Array[], P: readonly number[]): { order: number[]; bound: number[] } {
  const classes: number[][] = [];
  for (const v of P) {
    let c = 0;
    while (c < classes.length && classes[c]!.some((u) => adj[v]![u] === 1)) c++;
    (classes[c] ??= []).push(v);
  }
  const order: number[] = [],
    bound: number[] = [];
  classes.forEach((cls, c) => cls.forEach((v) => (order.push(v), bound.push(c + 1))));
  return { order, bound };
}

/**
 * A maximum clique of the graph with adjacency matrix `adj` (symmetric, 0/1), by branch and
 * bound with a colouring bound (Tomita & Seki, "An efficient branch-and-bound algorithm for
 * finding a maximum clique", 2003). Exact; exponential in the worst case, fast on the
 * compatibility graphs of a few dozen experts.
 */
export function maximumClique(adj: readonly Uint8Array[]): number[] {
  const n = adj.length;
  const degree = adj.map((row) => row.reduce((s, x) => s + x, 0));
  const P0 = Array.from({ length: n }, (_, i) => i).sort((a, b) => degree[b]! - degree[a]! || a - b);
  let best: number[] = [];
  const R: number[] = [];
  const expand = (P: readonly number[]): void => {
    const { order, bound } = colourSort(adj, P);
    for (let k = order.length - 1; k >= 0; k--) {
      if (R.length + bound[k]! <= best.length) return;
      const v = order[k]!;
      const next = order.slice(0, k).filter((u) => adj[v]![u] === 1);
      R.push(v);
      if (next.length === 0) {
        if (R.length > best.length) best = [...R];
      } else expand(next);
      R.pop();
    }
  };
  if (n > 0) expand(P0);
  return best;
}

/**
 * A maximal (not necessarily maximum) clique, greedily: from each of the 32 highest-degree
 * start vertices, repeatedly add the candidate with the most neighbours among the remaining
 * candidates; keep the largest. An approximation for graphs too large for `maximumClique`.
 */
export function greedyClique(adj: readonly Uint8Array[]): number[] {
  const n = adj.length;
  const degree = adj.map((row) => row.reduce((s, x) => s + x, 0));
  const starts = Array.from({ length: n }, (_, i) => i)
    .sort((a, b) => degree[b]! - degree[a]! || a - b)
    .slice(0, 32);
  let best: number[] = [];
  for (const s of starts) {
    const clique = [s];
    let cand = Array.from({ length: n }, (_, u) => u).filter((u) => u !== s && adj[s]![u] === 1);
    while (cand.length) {
      let pick = cand[0]!,
        most = -1;
      for (const u of cand) {
        let c = 0;
        for (const w of cand) c += adj[u]![w]!;
        if (c > most) {
          most = c;
          pick = u;
        }
      }
      clique.push(pick);
      cand = cand.filter((u) => u !== pick && adj[pick]![u] === 1);
    }
    if (clique.length > best.length) best = clique;
  }
  return best;
}
