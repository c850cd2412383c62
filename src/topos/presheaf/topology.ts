import type { FiniteCategory } from '../../category/finite.js';
import type { Presheaf } from './presheaf.js';
import { maximalSieve, pullbackSieve, showSieve, sieveKey, sieveMeter, sieves } from './sieve.js';
import type { WorkMeter } from '../../errors.js';
import type { Sieve } from './sieve.js';
import { ToposError } from '../../category/errors.js';

/**
 * A Grothendieck topology J on a finite category (Mac Lane–Moerdijk §III.2, Def. 1):
 * a set J(c) of covering sieves on every object c with
 *  1. maximal sieve: t_c ∈ J(c);
 *  2. stability: S ∈ J(c), f: d → c ⇒ f*S ∈ J(d);
 *  3. transitivity: S ∈ J(c), R a sieve on c with f*R ∈ J(d) for all f: d → c in S ⇒ R ∈ J(c).
 */
export interface GrothendieckTopology {
  readonly category: FiniteCategory;
  readonly covers: readonly (readonly Sieve[])[];
}

/** Where an axiom fails: the axiom, the object, the sieve, and (for stability) the arrow. */
export interface AxiomFailure {
  readonly axiom: 'maximal sieve' | 'stability' | 'transitivity';
  readonly object: string;
  readonly sieve: string;
  readonly arrow?: string;
  readonly message: string;
}

/** Checks the three axioms; returns the first failure or undefined. The sieve enumeration is metered by `meter`. */
export function topologyAxiomFailure(
  C: FiniteCategory,
  covers: readonly (readonly Sieve[])[],
  meter = sieveMeter('checking the topology axioms'),
): AxiomFailure | undefined {
  const J = covers.map((ss) => new Set(ss.map(sieveKey)));
  const obj = (c: number): string => C.objects[c]!;
  for (let c = 0; c < C.objects.length; c++) {
    const t = maximalSieve(C, c);
    if (!J[c]!.has(sieveKey(t)))
      return {
        axiom: 'maximal sieve',
        object: obj(c),
        sieve: showSieve(C, t),
        message: `topology axiom 'maximal sieve' fails at ${obj(c)}: the maximal sieve ${showSieve(C, t)} does not cover`,
      };
  }
  for (let c = 0; c < C.objects.length; c++) {
    for (const S of covers[c]!) {
      if (S.object !== c) throw new ToposError(`covering sieve ${showSieve(C, S)} listed at ${obj(c)} lives on ${obj(S.object)}`);
      for (const f of C.arrowsInto(c)) {
        const fS = pullbackSieve(C, S, f);
        if (!J[fS.object]!.has(sieveKey(fS))) {
          return {
            axiom: 'stability',
            object: obj(c),
            sieve: showSieve(C, S),
            arrow: C.arrows[f]!.name,
            message: `topology axiom 'stability' fails: ${showSieve(C, S)} covers ${obj(c)} but its pullback ${showSieve(C, fS)} along ${C.describe(f)} does not cover ${obj(fS.object)}`,
          };
        }
      }
    }
  }
  for (let c = 0; c < C.objects.length; c++) {
    for (const R of sieves(C, c, undefined, meter)) {
      if (J[c]!.has(sieveKey(R))) continue;
      // each cover S pulls R back along every arrow of S
      meter.spend(covers[c]!.reduce((s, S) => s + S.arrows.reduce((t, f) => t + C.arrowsInto(C.arrows[f]!.dom).length + 1, 0), 0));
      const S = covers[c]!.find((S) => S.arrows.every((f) => J[C.arrows[f]!.dom]!.has(sieveKey(pullbackSieve(C, R, f)))));
      if (S)
        return {
          axiom: 'transitivity',
          object: obj(c),
          sieve: showSieve(C, R),
          message: `topology axiom 'transitivity' fails at ${obj(c)}: ${showSieve(C, R)} is locally covering on the cover ${showSieve(C, S)} but does not cover`,
        };
    }
  }
  return undefined;
}

/** A Grothendieck topology from its covering sieves, checked; a ToposError names the failing axiom, object, sieve and arrow. */
export function grothendieckTopology(C: FiniteCategory, covers: readonly (readonly Sieve[])[], meter?: WorkMeter): GrothendieckTopology {
  if (covers.length !== C.objects.length) throw new ToposError(`a topology needs covering sieves at each of the ${C.objects.length} objects`);
  const fail = topologyAxiomFailure(C, covers, meter);
  if (fail) throw new ToposError(fail.message);
  return { category: C, covers };
}

/**
 * The smallest Grothendieck topology in which the given sieves cover: close under the
 * three axioms until nothing changes (the intersection of all topologies containing them).
 */
export function topologyGeneratedBy(C: FiniteCategory, generators: readonly Sieve[], all = C.objects.map((_, c) => sieves(C, c))): GrothendieckTopology {
  const J = C.objects.map(() => new Map<string, Sieve>());
  const add = (S: Sieve): boolean => {
    const k = sieveKey(S);
    if (J[S.object]!.has(k)) return false;
    J[S.object]!.set(k, S);
    return true;
  };
  C.objects.forEach((_, c) => add(maximalSieve(C, c)));
  generators.forEach(add);
  for (let changed = true; changed;) {
    changed = false;
    for (let c = 0; c < C.objects.length; c++) {
      for (const S of [...J[c]!.values()]) for (const f of C.arrowsInto(c)) changed = add(pullbackSieve(C, S, f)) || changed;
    }
    for (let c = 0; c < C.objects.length; c++) {
      for (const R of all[c]!) {
        if (J[c]!.has(sieveKey(R))) continue;
        const local = [...J[c]!.values()].some((S) => S.arrows.every((f) => J[C.arrows[f]!.dom]!.has(sieveKey(pullbackSieve(C, R, f)))));
        if (local) changed = add(R) || changed;
      }
    }
  }
  return { category: C, covers: J.map((m) => [...m.values()].sort((a, b) => a.arrows.length - b.arrows.length || sieveKey(a).localeCompare(sieveKey(b)))) };
}

function topologyKey(J: GrothendieckTopology): string {
  return J.covers.map((ss) => ss.map(sieveKey).sort().join(';')).join('|');
}

/**
 * All Grothendieck topologies on C. They form a lattice in which every topology is the join
 * of those generated by its single sieves, so a breadth-first search from the trivial one
 * (only maximal sieves cover), adding one sieve at a time and closing, reaches each of them.
 */
export function allTopologies(C: FiniteCategory, limit = 10000): GrothendieckTopology[] {
  const all = C.objects.map((_, c) => sieves(C, c));
  const start = topologyGeneratedBy(C, [], all);
  const seen = new Map<string, GrothendieckTopology>([[topologyKey(start), start]]);
  const queue = [start];
  while (queue.length) {
    const J = queue.shift()!;
    const covered = J.covers.map((ss) => new Set(ss.map(sieveKey)));
    for (let c = 0; c < C.objects.length; c++) {
      for (const S of all[c]!) {
        if (covered[c]!.has(sieveKey(S))) continue;
        const K = topologyGeneratedBy(C, [...J.covers.flat(), S], all);
        const k = topologyKey(K);
        if (seen.has(k)) continue;
        if (seen.size >= limit) throw new ToposError(`more than ${limit} topologies`);
        seen.set(k, K);
        queue.push(K);
      }
    }
  }
  return [...seen.values()];
}

/**
 * The matching families of P on a sieve S on c (Mac Lane–Moerdijk §III.4): an element
 * x_f ∈ P(dom f) for each f ∈ S with P(g)(x_f) = x_{f∘g}. Returned as arrays aligned with S.arrows.
 */
export function matchingFamilies(P: Presheaf, S: Sieve, limit = 100000): number[][] {
  const C = P.category;
  const fs = S.arrows;
  const pos = new Map(fs.map((f, i) => [f, i]));
  const x = new Array<number>(fs.length).fill(-1);
  const out: number[][] = [];
  const ok = (i: number): boolean => {
    const f = fs[i]!;
    for (const g of C.arrowsInto(C.arrows[f]!.dom)) {
      const j = pos.get(C.compose(f, g))!;
      if (j <= i && x[j] !== P.restrict(g, x[i]!)) return false;
    }
    // constraints where an earlier-assigned family member restricts onto f
    for (let j = 0; j < i; j++) {
      const h = fs[j]!;
      for (const g of C.arrowsInto(C.arrows[h]!.dom)) if (C.compose(h, g) === f && x[i] !== P.restrict(g, x[j]!)) return false;
    }
    return true;
  };
  const go = (i: number): void => {
    if (out.length >= limit) return;
    if (i === fs.length) {
      out.push(x.slice());
      return;
    }
    for (let v = 0; v < P.size(C.arrows[fs[i]!]!.dom); v++) {
      x[i] = v;
      if (ok(i)) go(i + 1);
    }
    x[i] = -1;
  };
  go(0);
  return out;
}

/** Where the sheaf condition fails: a covering sieve and how many amalgamations a matching family has (0 or ≥ 2). */
export interface SheafFailure {
  readonly object: string;
  readonly sieve: string;
  readonly family: readonly number[];
  readonly amalgamations: number;
}

/**
 * The sheaf condition (Mac Lane–Moerdijk §III.4): for every covering sieve S on c, every
 * matching family has exactly one amalgamation x ∈ P(c) with P(f)x = x_f for all f ∈ S.
 * Returns the first failure, or undefined when P is a J-sheaf.
 */
export function sheafConditionFailure(P: Presheaf, J: GrothendieckTopology): SheafFailure | undefined {
  const C = P.category;
  for (let c = 0; c < C.objects.length; c++) {
    for (const S of J.covers[c]!) {
      const byFamily = new Map<string, number>();
      for (let x = 0; x < P.size(c); x++) {
        const k = S.arrows.map((f) => P.restrict(f, x)).join(',');
        byFamily.set(k, (byFamily.get(k) ?? 0) + 1);
      }
      for (const fam of matchingFamilies(P, S)) {
        const n = byFamily.get(fam.join(',')) ?? 0;
        if (n !== 1) return { object: C.objects[c]!, sieve: showSieve(C, S), family: fam, amalgamations: n };
      }
    }
  }
  return undefined;
}

/** Whether P is a sheaf for J. */
export function isSheaf(P: Presheaf, J: GrothendieckTopology): boolean {
  return sheafConditionFailure(P, J) === undefined;
}

/**
 * The J-closed sieves on c (Mac Lane–Moerdijk §V.1–V.2): S such that every f: d → c whose
 * pullback f*S covers d already lies in S. They are Ω_J(c), the subobject classifier of the
 * sheaf topos Sh(C, J).
 */
export function closedSieves(J: GrothendieckTopology, c: number, limit = 100000): Sieve[] {
  const C = J.category;
  const covering = J.covers.map((ss) => new Set(ss.map(sieveKey)));
  return sieves(C, c, limit).filter((S) => {
    const inS = new Set(S.arrows);
    return C.arrowsInto(c).every((f) => inS.has(f) || !covering[C.arrows[f]!.dom]!.has(sieveKey(pullbackSieve(C, S, f))));
  });
}
