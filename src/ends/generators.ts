import type { FiniteCategory } from '../category/finite.js';

/**
 * Arrows that generate a finite category under composition: every arrow is an identity or a
 * composite of them. An end needs its wedge condition only on generating arrows, and a coend
 * its relations only there (if F(c, f)x_c = F(f, c')x_{c'} holds for f and for g, it holds for
 * g∘f by the interchange law of the bifunctor; likewise the relation of g∘f is the chain of
 * those of f and g — Loregian, *(Co)end Calculus*, §1.1). For BG that is the group's own
 * generators (GroupCategory.generators): two for S(n) instead of n! arrows.
 *
 * Found here as: the non-identity arrows that are no composite of two non-identity arrows (a
 * poset's covering relations, a graph's edges), then — for what those do not reach, such as an
 * element of a group — the first arrow not yet reached, added until every arrow is. Each
 * addition extends the closure from the new arrow only, so the whole costs about the composable
 * pairs of C (which building C has paid already). Memoised per category.
 */
export function generatingArrows(C: FiniteCategory): readonly number[] {
  let g = cache.get(C);
  if (!g) cache.set(C, (g = findGenerators(C)));
  return g;
}

const cache = new WeakMap<FiniteCategory, readonly number[]>();

/** Composable pairs beyond which the indecomposables are not sought first (the greedy closure alone then chooses). */
const MAX_PAIRS_SCANNED = 2 ** 24;

function findGenerators(C: FiniteCategory): number[] {
  const m = C.arrows.length;
  const identity = (f: number): boolean => C.isIdentity(f);
  // indecomposables: no g∘f with g, f non-identity equals them
  const decomposable = new Uint8Array(m);
  let pairs = 0;
  for (let f = 0; f < m; f++) pairs += C.arrowsFrom(C.arrows[f]!.cod).length;
  if (pairs <= MAX_PAIRS_SCANNED) {
    for (let f = 0; f < m; f++) {
      if (identity(f)) continue;
      for (const g of C.arrowsFrom(C.arrows[f]!.cod)) if (!identity(g)) decomposable[C.compose(g, f)] = 1;
    }
  }
  const gens: number[] = [];
  const reached = new Uint8Array(m);
  for (const id of C.identities) reached[id] = 1;
  // the closure grows by post-composing with generators: every composite is a word in them
  const into: number[][] = C.objects.map(() => []); // reached arrows by codomain
  for (const id of C.identities) into[C.arrows[id]!.cod]!.push(id);
  const outGens: number[][] = C.objects.map(() => []); // generators by domain
  const reach = (queue: number[]): void => {
    while (queue.length) {
      const a = queue.pop()!;
      for (const g of outGens[C.arrows[a]!.cod]!) {
        const h = C.compose(g, a);
        if (!reached[h]) {
          reached[h] = 1;
          into[C.arrows[h]!.cod]!.push(h);
          queue.push(h);
        }
      }
    }
  };
  const add = (g: number): void => {
    gens.push(g);
    outGens[C.arrows[g]!.dom]!.push(g);
    // the new words: g after everything reached so far into its domain, then their extensions
    const queue: number[] = [];
    for (const a of [...into[C.arrows[g]!.dom]!]) {
      const h = C.compose(g, a);
      if (!reached[h]) {
        reached[h] = 1;
        into[C.arrows[h]!.cod]!.push(h);
      }
      queue.push(h);
    }
    reach(queue);
  };
  for (let f = 0; f < m; f++) if (!identity(f) && !decomposable[f] && !reached[f]) add(f);
  for (let f = 0; f < m; f++) if (!reached[f]) add(f);
  return gens;
}
