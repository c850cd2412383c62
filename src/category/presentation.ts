import { checkCategorySize, FiniteCategory } from './finite.js';
import type { Arrow } from './finite.js';
import { ToposError } from './errors.js';
import { formatCount, quote, TooLargeError } from '../errors.js';

/** The most paths (of length ≤ 2·maxLength) a presentation may enumerate, and their total length. */
export const MAX_PATHS = 200_000;
export const MAX_PATH_EDGES = 2 ** 23;

/** A generating edge src → tgt of a graph presenting a category. */
export interface GraphEdge {
  readonly name: string;
  readonly src: string;
  readonly tgt: string;
}

/**
 * The category presented by a directed graph and relations between parallel paths (Mac Lane
 * §II.8, "categories given by generators and relations"): arrows are paths modulo the
 * smallest congruence containing the relations. A path is a list of edge names, first edge
 * first; [] at an object is its identity (write relations as [path, path, object?]).
 *
 * Paths of length ≤ maxLength are enumerated; the presentation must be finite within that
 * bound: every path of length maxLength+1 … 2·maxLength must equal a shorter one, else a
 * ToposError says so. For an acyclic graph the default bound (number of vertices) is exact.
 */
export function categoryFromGraph(
  vertices: readonly string[],
  edges: readonly GraphEdge[],
  relations: readonly (readonly [readonly string[], readonly string[]])[] = [],
  opts: { maxLength?: number } = {},
): FiniteCategory {
  const L = opts.maxLength ?? vertices.length;
  const vertexIndex = new Map(vertices.map((s, i) => [s, i]));
  const v = (s: string): number => {
    const i = vertexIndex.get(s);
    if (i === undefined) throw new ToposError(`edge endpoint ${quote(s)} is not a vertex; vertices: ${quote(vertices.join(', '), 200)}`);
    return i;
  };
  const E = edges.map((e) => ({ name: e.name, src: v(e.src), tgt: v(e.tgt) }));
  const out = vertices.map((): number[] => []);
  E.forEach((e, ei) => out[e.src]!.push(ei));
  const tooMany = (what: string): never => {
    throw new TooLargeError(
      `the graph (${vertices.length} vertices, ${edges.length} edges) presents more than ${what} of length ≤ ${2 * L}; give a smaller graph or maxLength`,
      { elements: paths.length, work: stored },
    );
  };
  // paths up to length 2L, as (start vertex, edge list)
  const paths: { start: number; end: number; edges: number[] }[] = vertices.map((_, i) => ({ start: i, end: i, edges: [] }));
  const key = (start: number, es: readonly number[]): string => `${start}:${es.join('.')}`;
  const index = new Map<string, number>(paths.map((p, i) => [key(p.start, p.edges), i]));
  let stored = 0; // edges held by all paths: the memory of the enumeration
  for (let len = 1, frontier = paths.slice(); len <= 2 * L && frontier.length; len++) {
    const next: typeof paths = [];
    for (const p of frontier) {
      for (const ei of out[p.end]!) {
        const q = { start: p.start, end: E[ei]!.tgt, edges: [...p.edges, ei] };
        index.set(key(q.start, q.edges), paths.length);
        paths.push(q);
        next.push(q);
        stored += len;
        if (paths.length > MAX_PATHS) tooMany(`${formatCount(MAX_PATHS)} paths`);
        if (stored > MAX_PATH_EDGES) tooMany(`${formatCount(MAX_PATH_EDGES)} edges in its paths`);
      }
    }
    frontier = next;
  }
  // union–find congruence closure
  const parent = paths.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const pathOf = (names: readonly string[], start?: number): number => {
    const es = names.map((n) => {
      const i = E.findIndex((e) => e.name === n);
      if (i < 0) throw new ToposError(`relation uses unknown edge ${quote(n)}`);
      return i;
    });
    const s = es.length ? E[es[0]!]!.src : start;
    if (s === undefined) throw new ToposError('an empty path in a relation needs an object');
    es.forEach((e, k) => {
      if (k > 0 && E[es[k - 1]!]!.tgt !== E[e]!.src) throw new ToposError(`relation path ${names.join('.')} is not composable at edge ${n(e)}`);
    });
    const i = index.get(key(s, es));
    if (i === undefined) throw new ToposError(`relation path ${names.join('.')} is longer than 2·maxLength = ${2 * L}`);
    return i;
  };
  const n = (e: number): string => E[e]!.name;
  const pending: [number, number][] = [];
  for (const [l, r] of relations) {
    const a = pathOf(l);
    const b = pathOf(r, paths[a]!.start);
    if (paths[a]!.start !== paths[b]!.start || paths[a]!.end !== paths[b]!.end) {
      throw new ToposError(`relation ${l.join('.') || 'id'} = ${r.join('.') || 'id'} relates paths with different ends`);
    }
    pending.push([a, b]);
  }
  // congruence: p ~ q implies e·p ~ e·q and p·e ~ q·e when the extended paths were enumerated
  const union = (a: number, b: number): void => {
    const ra = find(a);
    const rb = find(b);
    if (ra === rb) return;
    parent[rb] = ra;
    pending.push([a, b]);
  };
  const seeds = pending.splice(0);
  for (const [a, b] of seeds) union(a, b);
  // union() pushed the seeds again; process to fixpoint
  while (pending.length) {
    const [a, b] = pending.pop()!;
    const p = paths[a]!;
    const q = paths[b]!;
    E.forEach((e, ei) => {
      if (e.src === p.end) {
        const x = index.get(key(p.start, [...p.edges, ei]));
        const y = index.get(key(q.start, [...q.edges, ei]));
        if (x !== undefined && y !== undefined) union(x, y);
      }
      if (e.tgt === p.start) {
        const x = index.get(key(e.src, [ei, ...p.edges]));
        const y = index.get(key(e.src, [ei, ...q.edges]));
        if (x !== undefined && y !== undefined) union(x, y);
      }
    });
  }
  // arrows: classes containing a path of length ≤ L; their shortest (then first) path names them
  const repOf = new Map<number, number>();
  paths.forEach((p, i) => {
    if (p.edges.length > L) return;
    const r = find(i);
    if (!repOf.has(r)) repOf.set(r, i);
  });
  for (let i = 0; i < paths.length; i++) {
    if (!repOf.has(find(i))) {
      throw new ToposError(`the presentation is not finite within maxLength ${L}: path ${paths[i]!.edges.map(n).join('.')} equals no path of length ≤ ${L}`);
    }
  }
  const arrowOf = new Map<number, number>();
  const arrows: Arrow[] = [];
  const identities: number[] = [];
  for (const [r, i] of repOf) {
    const p = paths[i]!;
    arrowOf.set(r, arrows.length);
    if (!p.edges.length) identities[p.start] = arrows.length;
    arrows.push({ name: p.edges.length ? p.edges.map(n).join('.') : `id_${vertices[p.start]}`, dom: p.start, cod: p.end, path: p.edges });
  }
  // composition is concatenation of paths modulo the congruence: a category by construction
  // composing f and g looks up the path f·g: the pairs, and the length of every such path
  const nv = vertices.length,
    into = new Float64Array(nv),
    from = new Float64Array(nv),
    lenInto = new Float64Array(nv),
    lenFrom = new Float64Array(nv);
  for (const a of arrows) {
    into[a.cod]!++;
    from[a.dom]!++;
    lenInto[a.cod]! += a.path!.length;
    lenFrom[a.dom]! += a.path!.length;
  }
  const work = lenInto.reduce((s, l, b) => s + l * from[b]! + into[b]! * lenFrom[b]!, 0);
  checkCategorySize(`the category presented by the graph`, arrows.length, FiniteCategory.composablePairs(arrows, nv), work);
  return new FiniteCategory(vertices, arrows, identities, (g, f) => {
    const pf = arrows[f]!;
    const i = index.get(key(pf.dom, [...pf.path!, ...arrows[g]!.path!]))!;
    return arrowOf.get(find(i))!;
  });
}
