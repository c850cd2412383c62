import { ToposError } from './topos-error.js';

/**
 * An arrow f: dom → cod of a finite category (objects are indices into `objects`).
 * `path` is set for categories presented by a graph: the generating edges, first applied first.
 */
export interface Arrow {
  readonly name: string;
  readonly dom: number;
  readonly cod: number;
  readonly path?: readonly number[];
}

/**
 * A finite category given by its composition table (Mac Lane, *Categories for the Working
 * Mathematician*, §I.2): objects, arrows with domain and codomain, an identity on every
 * object, and g∘f for every composable pair (cod f = dom g). Everything is by index:
 * objects 0..n−1, arrows 0..m−1, so tables and presheaves are plain arrays.
 *
 * Construct with `finiteCategory` (which checks the identity and associativity laws),
 * `categoryFromPoset`, `categoryFromMonoid` or `categoryFromGraph`.
 */
export class FiniteCategory {
  readonly objects: readonly string[];
  readonly arrows: readonly Arrow[];
  /** identities[c] is the index of id_c. */
  readonly identities: readonly number[];
  /** table[g·m + f] = g∘f, or −1 when cod f ≠ dom g. */
  private readonly table: Int32Array;
  private readonly into: number[][];
  private readonly from: number[][];

  constructor(objects: readonly string[], arrows: readonly Arrow[], identities: readonly number[], table: Int32Array) {
    this.objects = objects;
    this.arrows = arrows;
    this.identities = identities;
    this.table = table;
    this.into = objects.map(() => []);
    this.from = objects.map(() => []);
    arrows.forEach((a, i) => {
      this.into[a.cod]!.push(i);
      this.from[a.dom]!.push(i);
    });
  }

  /** g∘f ("first f, then g"); throws a ToposError naming both arrows when cod f ≠ dom g. */
  compose(g: number, f: number): number {
    const h = this.table[g * this.arrows.length + f]!;
    if (h < 0) {
      throw new ToposError(`cannot compose ${this.describe(g)} after ${this.describe(f)}: codomain ${this.objects[this.arrows[f]!.cod]} ≠ domain ${this.objects[this.arrows[g]!.dom]}`);
    }
    return h;
  }

  /** Arrows a → b. */
  hom(a: number, b: number): number[] {
    return this.from[a]!.filter((f) => this.arrows[f]!.cod === b);
  }

  /** Arrows with codomain c (the maximal sieve on c). */
  arrowsInto(c: number): readonly number[] {
    return this.into[c]!;
  }

  /** Arrows with domain c. */
  arrowsFrom(c: number): readonly number[] {
    return this.from[c]!;
  }

  /** The index of the object with this name (ToposError listing the objects otherwise). */
  object(name: string): number {
    const i = this.objects.indexOf(name);
    if (i < 0) throw new ToposError(`no object '${name}'; objects: ${this.objects.join(', ')}`);
    return i;
  }

  /** The index of the arrow with this name. */
  arrow(name: string): number {
    const i = this.arrows.findIndex((a) => a.name === name);
    if (i < 0) throw new ToposError(`no arrow '${name}'`);
    return i;
  }

  /** 'f: a → b'. */
  describe(f: number): string {
    const a = this.arrows[f]!;
    return `${a.name}: ${this.objects[a.dom]} → ${this.objects[a.cod]}`;
  }

  isIdentity(f: number): boolean {
    return this.identities[this.arrows[f]!.dom] === f;
  }

  /** Thin (a preorder): at most one arrow between any two objects. */
  isThin(): boolean {
    return this.parallelPair() === undefined;
  }

  /** Two distinct arrows with the same domain and codomain, if any (the witness that C is not thin). */
  parallelPair(): [number, number] | undefined {
    const seen = new Map<string, number>();
    for (let f = 0; f < this.arrows.length; f++) {
      const key = `${this.arrows[f]!.dom},${this.arrows[f]!.cod}`;
      const g = seen.get(key);
      if (g !== undefined) return [g, f];
      seen.set(key, f);
    }
    return undefined;
  }

  /** The composition table as names: row g, column f holds g∘f ('' when not composable). */
  compositionTable(): string[][] {
    const m = this.arrows.length;
    return this.arrows.map((_, g) => this.arrows.map((__, f) => {
      const h = this.table[g * m + f]!;
      return h < 0 ? '' : this.arrows[h]!.name;
    }));
  }

  /** The opposite category C^op: same arrows reversed, (f∘g)^op = g^op∘f^op. */
  opposite(): FiniteCategory {
    const m = this.arrows.length;
    const t = new Int32Array(m * m);
    for (let g = 0; g < m; g++) for (let f = 0; f < m; f++) t[g * m + f] = this.table[f * m + g]!;
    return new FiniteCategory(this.objects, this.arrows.map((a) => ({ name: a.name, dom: a.cod, cod: a.dom })), this.identities, t);
  }
}

/**
 * A finite category from explicit data, checked: every identity is a two-sided unit, the
 * composite of composable arrows exists and has the right ends, and composition is
 * associative (h∘g)∘f = h∘(g∘f). `compose(g, f)` returns g∘f for composable pairs.
 */
export function finiteCategory(objects: readonly string[], arrows: readonly Arrow[], identities: readonly number[], compose: (g: number, f: number) => number): FiniteCategory {
  const m = arrows.length;
  const t = new Int32Array(m * m).fill(-1);
  for (let g = 0; g < m; g++) {
    for (let f = 0; f < m; f++) {
      if (arrows[f]!.cod !== arrows[g]!.dom) continue;
      const h = compose(g, f);
      if (!(h >= 0 && h < m) || arrows[h]!.dom !== arrows[f]!.dom || arrows[h]!.cod !== arrows[g]!.cod) {
        throw new ToposError(`composite ${arrows[g]!.name}∘${arrows[f]!.name} must be an arrow ${objects[arrows[f]!.dom]} → ${objects[arrows[g]!.cod]}, got ${h >= 0 && h < m ? arrows[h]!.name : String(h)}`);
      }
      t[g * m + f] = h;
    }
  }
  const C = new FiniteCategory(objects, arrows, identities, t);
  checkCategory(C);
  return C;
}

/** Checks the identity laws id∘f = f = f∘id and associativity; throws a ToposError naming the arrows that fail. */
export function checkCategory(C: FiniteCategory): void {
  const { arrows, identities, objects } = C;
  if (identities.length !== objects.length) throw new ToposError(`need one identity per object: ${objects.length} objects, ${identities.length} identities`);
  identities.forEach((i, c) => {
    const a = arrows[i];
    if (!a || a.dom !== c || a.cod !== c) throw new ToposError(`identity of ${objects[c]} must be an arrow ${objects[c]} → ${objects[c]}`);
  });
  for (let f = 0; f < arrows.length; f++) {
    const a = arrows[f]!;
    if (C.compose(identities[a.cod]!, f) !== f || C.compose(f, identities[a.dom]!) !== f) {
      throw new ToposError(`identity law fails at ${C.describe(f)}`);
    }
  }
  for (let f = 0; f < arrows.length; f++) {
    for (const g of C.arrowsFrom(arrows[f]!.cod)) {
      const gf = C.compose(g, f);
      for (const h of C.arrowsFrom(arrows[g]!.cod)) {
        if (C.compose(C.compose(h, g), f) !== C.compose(h, gf)) {
          throw new ToposError(`associativity fails: (${arrows[h]!.name}∘${arrows[g]!.name})∘${arrows[f]!.name} ≠ ${arrows[h]!.name}∘(${arrows[g]!.name}∘${arrows[f]!.name})`);
        }
      }
    }
  }
}

/**
 * A finite poset as a category (Mac Lane §I.2): one arrow a → b exactly when a ≤ b, named
 * `a≤b` (identities `id_a`). Checks reflexivity, antisymmetry and transitivity of `leq`.
 */
export function categoryFromPoset(elements: readonly string[], leq: (a: number, b: number) => boolean): FiniteCategory {
  const n = elements.length;
  if (new Set(elements).size !== n) throw new ToposError(`poset elements must be distinct: ${elements.join(', ')}`);
  for (let a = 0; a < n; a++) {
    if (!leq(a, a)) throw new ToposError(`not reflexive: ${elements[a]} ≤ ${elements[a]} fails`);
    for (let b = 0; b < n; b++) {
      if (a !== b && leq(a, b) && leq(b, a)) throw new ToposError(`not antisymmetric: ${elements[a]} ≤ ${elements[b]} and ${elements[b]} ≤ ${elements[a]} but they differ`);
      for (let c = 0; c < n; c++) {
        if (leq(a, b) && leq(b, c) && !leq(a, c)) throw new ToposError(`not transitive: ${elements[a]} ≤ ${elements[b]} ≤ ${elements[c]} but not ${elements[a]} ≤ ${elements[c]}`);
      }
    }
  }
  const arrows: Arrow[] = [];
  const index = new Map<number, number>();
  const identities: number[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (!leq(a, b)) continue;
      index.set(a * n + b, arrows.length);
      if (a === b) identities[a] = arrows.length;
      arrows.push({ name: a === b ? `id_${elements[a]}` : `${elements[a]}≤${elements[b]}`, dom: a, cod: b });
    }
  }
  return finiteCategory(elements, arrows, identities, (g, f) => index.get(arrows[f]!.dom * n + arrows[g]!.cod)!);
}

/**
 * Parses a poset written as generating relations, e.g. "a<b, a<c" or "0<1<2" (`<=` also
 * accepted), and returns its category: the reflexive–transitive closure of the relations.
 * A cycle such as "a<b, b<a" is not antisymmetric and throws a ToposError naming the pair.
 */
export function parsePoset(text: string): FiniteCategory {
  const elements: string[] = [];
  const id = (s: string): number => {
    const name = s.trim();
    if (!/^[\w★'.-]+$/u.test(name)) throw new ToposError(`poset element '${name}' must be a name (letters, digits, _ . ' -)`);
    let i = elements.indexOf(name);
    if (i < 0) i = elements.push(name) - 1;
    return i;
  };
  const pairs: [number, number][] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter((p) => p.length)) {
    const chain = part.split(/<=?/).map(id);
    for (let i = 0; i + 1 < chain.length; i++) pairs.push([chain[i]!, chain[i + 1]!]);
  }
  if (!elements.length) throw new ToposError(`empty poset '${text}': write relations like "a<b, a<c"`);
  const n = elements.length;
  const le = new Uint8Array(n * n);
  for (let a = 0; a < n; a++) le[a * n + a] = 1;
  for (const [a, b] of pairs) le[a * n + b] = 1;
  for (let k = 0; k < n; k++) for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) if (le[a * n + k] && le[k * n + b]) le[a * n + b] = 1;
  return categoryFromPoset(elements, (a, b) => le[a * n + b] === 1);
}

/**
 * A finite monoid as a one-object category (Mac Lane §I.2): arrows are the elements,
 * g∘f = table[g][f]. Checks that an identity exists and the table is associative.
 */
export function categoryFromMonoid(elements: readonly string[], table: readonly (readonly number[])[]): FiniteCategory {
  const n = elements.length;
  if (table.length !== n || table.some((r) => r.length !== n)) throw new ToposError(`monoid table must be ${n}×${n}`);
  const unit = elements.findIndex((_, e) => elements.every((__, x) => table[e]![x] === x && table[x]![e] === x));
  if (unit < 0) throw new ToposError('monoid table has no identity element (an e with e·x = x = x·e for all x)');
  const arrows = elements.map((name) => ({ name, dom: 0, cod: 0 }));
  return finiteCategory(['*'], arrows, [unit], (g, f) => table[g]![f]!);
}

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
export function categoryFromGraph(vertices: readonly string[], edges: readonly GraphEdge[], relations: readonly (readonly [readonly string[], readonly string[]])[] = [], opts: { maxLength?: number } = {}): FiniteCategory {
  const L = opts.maxLength ?? vertices.length;
  const v = (s: string): number => {
    const i = vertices.indexOf(s);
    if (i < 0) throw new ToposError(`edge endpoint '${s}' is not a vertex; vertices: ${vertices.join(', ')}`);
    return i;
  };
  const E = edges.map((e) => ({ name: e.name, src: v(e.src), tgt: v(e.tgt) }));
  // paths up to length 2L, as (start vertex, edge list)
  const paths: { start: number; end: number; edges: number[] }[] = vertices.map((_, i) => ({ start: i, end: i, edges: [] }));
  const key = (start: number, es: readonly number[]): string => `${start}:${es.join('.')}`;
  const index = new Map<string, number>(paths.map((p, i) => [key(p.start, p.edges), i]));
  for (let len = 1, frontier = paths.slice(); len <= 2 * L; len++) {
    const next: typeof paths = [];
    for (const p of frontier) {
      E.forEach((e, ei) => {
        if (e.src !== p.end) return;
        const q = { start: p.start, end: e.tgt, edges: [...p.edges, ei] };
        index.set(key(q.start, q.edges), paths.length);
        paths.push(q);
        next.push(q);
      });
    }
    frontier = next;
    if (paths.length > 200000) throw new ToposError(`graph presents too many paths of length ≤ ${2 * L}; give a smaller maxLength`);
  }
  // union–find congruence closure
  const parent = paths.map((_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const pathOf = (names: readonly string[], start?: number): number => {
    const es = names.map((n) => {
      const i = E.findIndex((e) => e.name === n);
      if (i < 0) throw new ToposError(`relation uses unknown edge '${n}'`);
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
  return finiteCategory(vertices, arrows, identities, (g, f) => {
    const pf = arrows[f]!;
    const i = index.get(key(pf.dom, [...pf.path!, ...arrows[g]!.path!]))!;
    return arrowOf.get(find(i))!;
  });
}
