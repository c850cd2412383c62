import type { FiniteCategory } from '../../category/finite.js';
import { countGlobalTruthValues, countSheafTruthValues } from './site.js';
import type { NetworkSite } from './site.js';
import { showSieve, sieveEquals, sieveMeter, sieveNegate, sieves } from '../presheaf/sieve.js';
import type { WorkMeter } from '../../errors.js';

/** A JSON-ready summary of a network's site (what `paralens topos site` prints). */
export interface SiteReport {
  readonly vertices: readonly string[];
  readonly edges: readonly string[];
  readonly objects: readonly string[];
  /** Non-identity arrows of C as 'name: dom → cod'. */
  readonly arrows: readonly string[];
  /** The generating arrows (one per edge of the forked graph), named 'src→tgt'. */
  readonly generators: readonly string[];
  readonly forks: readonly { vertex: string; star: string; tank: string; tines: string[]; tang: string; handle: string }[];
  readonly thin: boolean;
  readonly parallelArrows?: readonly [string, string];
  /** Sieves on each object of C: |Ω(c)| in PSh(C). */
  readonly sievesPerObject: Readonly<Record<string, number>>;
  /** Sieves on each object of Belfiore–Bennequin's C_X (no A★): |Ω(c)| in PSh(C_X) ≃ Sh(C, J). */
  readonly sievesPerObjectCX: Readonly<Record<string, number>>;
  readonly coveringSieves: Readonly<Record<string, string[]>>;
  /** Global truth values of the presheaf topos PSh(C) (down-sets of the reachability order, A★ kept). */
  readonly globalTruthValues: number;
  /** Global truth values of the sheaf topos Sh(C, J) ≃ PSh(C_X) (down-sets of C_X). */
  readonly sheafGlobalTruthValues: number;
  /** The objects of C_X (those of C without the A★). */
  readonly objectsCX: readonly string[];
  readonly minimal: readonly string[];
  readonly maximal: readonly string[];
}

export function siteReport(site: NetworkSite, meter = sieveMeter('the sieves of the site', site.category)): SiteReport {
  const { graph, category: C } = site;
  const name = (f: number): string => C.arrows[f]!.name;
  const sievesPerObject: Record<string, number> = {};
  const sievesPerObjectCX: Record<string, number> = {};
  site.posetCX.objects.forEach((o, c) => (sievesPerObjectCX[o] = sieves(site.posetCX, c).length));
  const coveringSieves: Record<string, string[]> = {};
  C.objects.forEach((o, c) => {
    sievesPerObject[o] = sieves(C, c, undefined, meter).length;
    const nontrivial = site.topology.covers[c]!.filter((S) => S.arrows.length !== C.arrowsInto(c).length);
    if (nontrivial.length) coveringSieves[o] = nontrivial.map((S) => showSieve(C, S));
  });
  return {
    vertices: graph.vertices,
    edges: graph.edges.map(([u, v]) => `${graph.vertices[u]}>${graph.vertices[v]}`),
    objects: C.objects,
    arrows: C.arrows.flatMap((_, f) => (C.isIdentity(f) ? [] : [C.describe(f)])),
    generators: C.arrows.flatMap((a) => (a.path?.length === 1 ? [a.name] : [])),
    forks: site.forks.map((k) => ({
      vertex: k.vertex,
      star: C.objects[k.star]!,
      tank: C.objects[k.tank]!,
      tines: k.tines.map(name),
      tang: name(k.tang),
      handle: name(k.handle),
    })),
    thin: site.thin,
    parallelArrows: site.parallelArrows,
    sievesPerObject,
    sievesPerObjectCX,
    coveringSieves,
    globalTruthValues: countGlobalTruthValues(C),
    sheafGlobalTruthValues: countSheafTruthValues(site),
    objectsCX: site.posetCX.objects,
    minimal: site.minimal,
    maximal: site.maximal,
  };
}

/** A JSON-ready summary of Ω on a finite category (what `paralens topos omega` prints). */
export interface OmegaReport {
  readonly objects: readonly string[];
  readonly sieves: Readonly<Record<string, string[]>>;
  readonly globalTruthValues: number;
  /** Whether every Ω(c) is Boolean (¬¬S = S for every sieve). */
  readonly boolean: boolean;
  /** A sieve S with ¬¬S ≠ S, if any: [object, S, ¬S, ¬¬S]. */
  readonly nonBooleanWitness?: readonly [string, string, string, string];
}

/** What negating every sieve twice costs at least, beyond enumerating them (`sieveWorkAtLeast`): a negation looks at every arrow into the domain of every arrow into c. */
function negationWorkAtLeast(C: FiniteCategory): number {
  return C.objects.reduce((total, _, c) => {
    const into = C.arrowsInto(c);
    return total + (into.length + 1) * 2 * into.reduce((s, f) => s + C.arrowsInto(C.arrows[f]!.dom).length, 0);
  }, 0);
}

export function omegaReport(C: FiniteCategory, meter: WorkMeter = sieveMeter('Ω of this category', C, negationWorkAtLeast(C))): OmegaReport {
  const out: Record<string, string[]> = {};
  let witness: [string, string, string, string] | undefined;
  C.objects.forEach((o, c) => {
    const ss = sieves(C, c, undefined, meter);
    out[o] = ss.map((S) => showSieve(C, S));
    const negation = C.arrowsInto(c).reduce((s, f) => s + C.arrowsInto(C.arrows[f]!.dom).length, 0);
    for (const S of ss) {
      meter.spend(2 * negation);
      const n = sieveNegate(C, S);
      const nn = sieveNegate(C, n);
      if (!witness && !sieveEquals(S, nn)) witness = [o, showSieve(C, S), showSieve(C, n), showSieve(C, nn)];
    }
  });
  return { objects: C.objects, sieves: out, globalTruthValues: countGlobalTruthValues(C), boolean: !witness, nonBooleanWitness: witness };
}
