import type { FiniteCategory } from '../../category/finite.js';
import { graphPicture } from '../../draw/graph.js';
import type { EdgeStyle, GraphEdge, GraphNode, NodeStyle } from '../../draw/graph.js';
import { sieveLeq, sieves, sieveNegate, sieveEquals } from '../presheaf/sieve.js';
import type { Sieve } from '../presheaf/sieve.js';
import type { NetworkSite } from './site.js';
import { TooLargeError } from '../../errors.js';

const OMEGA_PICTURE_LIMIT = 256;
import type { GroupAction, GroupPresheaf } from './stack.js';

/**
 * Pictures of Topos II (Belfiore–Bennequin): the site of a network with its forks marked, the
 * lattice of sieves Ω(c) at one object as a Hasse diagram, and the fibres of a stack over a
 * site. The layout is dagre's (draw/graph.ts); this file says what to draw.
 */

/** The site C of a network: its objects (A★ and A of each fork marked), the generating arrows (tines, tangs, handles marked). */
export function sitePicture(site: NetworkSite, title = 'the site C of the network'): string {
  const C = site.category;
  const stars = new Set(site.forks.map((k) => k.star)),
    tanks = new Set(site.forks.map((k) => k.tank));
  const minimal = new Set(site.minimal),
    maximal = new Set(site.maximal);
  const style = (o: number): NodeStyle =>
    stars.has(o) ? 'star' : tanks.has(o) ? 'tank' : minimal.has(C.objects[o]!) ? 'output' : maximal.has(C.objects[o]!) ? 'input' : 'plain';
  const nodes: GraphNode[] = C.objects.map((o, i) => ({ id: String(i), label: o, style: style(i) }));
  const kindOf = new Map(site.generators.map((g) => [g.name, g.kind]));
  const edges: GraphEdge[] = C.arrows.flatMap((a) => {
    if (a.path?.length !== 1) return [];
    const kind = kindOf.get(a.name);
    return [
      {
        from: String(a.dom),
        to: String(a.cod),
        label: kind === 'layer' ? undefined : kind,
        style: kind === 'tine' ? ('accent' as const) : kind === 'tang' || kind === 'handle' ? ('dashed' as const) : ('solid' as const),
      },
    ];
  });
  const names: Record<NodeStyle, string> = {
    star: 'A★ (fork: joins the inputs)',
    tank: 'A (fork: the layer)',
    output: 'minimal',
    input: 'maximal',
    plain: 'other',
    accent: '',
    muted: '',
  };
  const edgeNames: Record<EdgeStyle, string> = { solid: 'layer', accent: 'tine', dashed: 'tang / handle', muted: '' };
  const used = <S extends string>(styles: readonly (S | undefined)[], text: Record<S, string>): Partial<Record<S, string>> =>
    Object.fromEntries(Object.entries(text).filter(([k]) => styles.includes(k as S))) as Partial<Record<S, string>>;
  return graphPicture(
    { nodes, edges },
    {
      title,
      direction: 'LR',
      legend: {
        node: used(
          nodes.map((n) => n.style),
          names,
        ),
        edge: used(
          edges.map((e) => e.style),
          edgeNames,
        ),
      },
    },
  );
}

/** A sieve by the arrows that generate it (those not a composite h∘g of another of its arrows with g ≠ id); in a thin category, by their domains. */
export function sieveLabel(C: FiniteCategory, S: Sieve): string {
  if (!S.arrows.length) return '∅';
  const inS = new Set(S.arrows);
  const generated = new Set<number>();
  for (const h of S.arrows) for (const g of C.arrowsInto(C.arrows[h]!.dom)) if (!C.isIdentity(g)) generated.add(C.compose(h, g));
  const gens = S.arrows.filter((f) => !generated.has(f) && inS.has(f));
  const thin = C.isThin();
  return `⟨${gens.map((f) => (thin ? C.objects[C.arrows[f]!.dom]! : C.arrows[f]!.name)).join(', ')}⟩`;
}

/**
 * Ω(c): the sieves on c ordered by inclusion, as a Hasse diagram (an edge S → T when T covers
 * S), bottom ∅, top the maximal sieve. Sieves with ¬¬S ≠ S (where the logic is not Boolean) are
 * marked.
 */
export function omegaHasse(C: FiniteCategory, c: number, title = `Ω(${C.objects[c]}): the sieves on ${C.objects[c]}`): string {
  const all = sieves(C, c);
  // the cover relation below compares every triple: bounded here, before that work
  if (all.length > OMEGA_PICTURE_LIMIT)
    throw new TooLargeError(`picture: Ω(${C.objects[c]}) has ${all.length} sieves; its Hasse diagram is drawn for at most ${OMEGA_PICTURE_LIMIT}`, {
      elements: all.length,
    });
  const lt = (a: Sieve, b: Sieve): boolean => a.arrows.length < b.arrows.length && sieveLeq(a, b);
  const nodes: GraphNode[] = all.map((S, i) => {
    const boolean = sieveEquals(sieveNegate(C, sieveNegate(C, S)), S);
    return { id: String(i), label: sieveLabel(C, S), style: i === 0 || i === all.length - 1 ? 'accent' : boolean ? 'plain' : 'star' };
  });
  const edges: GraphEdge[] = [];
  all.forEach((S, i) =>
    all.forEach((T, j) => {
      if (lt(S, T) && !all.some((U) => lt(S, U) && lt(U, T))) edges.push({ from: String(i), to: String(j), style: 'muted' });
    }),
  );
  const anyNon = nodes.some((n) => n.style === 'star');
  return graphPicture(
    { nodes, edges },
    {
      title,
      direction: 'BT',
      rankSep: 40,
      nodeSep: 16,
      legend: {
        node: { accent: '∅ and the maximal sieve', plain: '¬¬S = S', ...(anyNon ? { star: '¬¬S ≠ S (not Boolean)' } : {}) },
        edge: { muted: 'S ⊂ T, nothing between' },
      },
    },
  );
}

/**
 * The fibres of a stack over a site: for each object U of C a box holding the objects (U, ξ) of
 * the action groupoid S(U)//F(U), the group's non-identity elements as arrows ξ → g·ξ inside it,
 * and the restrictions S_α: S(U) → S(V) along each generating arrow α: V → U between boxes.
 */
export function stackPicture(F: GroupPresheaf, A: GroupAction, title = 'a stack: the fibres S(U)//F(U) over the site'): string {
  const C = F.category;
  const id = (U: number, x: number): string => `${U}:${x}`;
  const nodes: GraphNode[] = [],
    edges: GraphEdge[] = [];
  C.objects.forEach((o, U) => {
    A.sets[U]!.forEach((xi, x) => nodes.push({ id: id(U, x), label: xi, parent: `U${U}` }));
    const G = F.groups[U]!;
    G.elements.forEach((g, k) => {
      if (k === G.identity) return;
      A.sets[U]!.forEach((_, x) => {
        const y = A.act[U]![k]![x]!;
        if (y !== x && x < y) edges.push({ from: id(U, x), to: id(U, y), label: g, style: 'accent' });
      });
    });
  });
  // generating arrows only: not identities, not composites of two non-identities
  C.arrows.forEach((a, b) => {
    if (C.isIdentity(b)) return;
    const composite = C.arrows.some(
      (_, f) =>
        !C.isIdentity(f) &&
        C.arrows[f]!.dom === a.dom &&
        C.arrows[f]!.cod !== a.cod &&
        C.arrows.some((__, g) => !C.isIdentity(g) && C.arrows[g]!.dom === C.arrows[f]!.cod && C.arrows[g]!.cod === a.cod && C.compose(g, f) === b),
    );
    if (composite) return;
    A.sets[a.cod]!.forEach((_, x) => edges.push({ from: id(a.cod, x), to: id(a.dom, A.restrict[b]![x]!), style: 'dashed' }));
  });
  const clusters = C.objects.map((o, U) => ({
    id: `U${U}`,
    label: `over ${o}: F(${o}) = ${F.groups[U]!.elements.length > 1 ? `{${F.groups[U]!.elements.join(', ')}}` : '1'}`,
  }));
  return graphPicture({ nodes, edges, clusters }, { title, direction: 'LR', legend: { edge: { accent: 'g: ξ → g·ξ in a fibre', dashed: 'restriction S_α' } } });
}
