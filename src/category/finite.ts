import { formatBytes, formatCount, quote, TooLargeError } from '../errors.js';
import { ToposError } from './errors.js';

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
  /**
   * Composition, stored for composable pairs only (a chain of n objects has n²/2 arrows but
   * about n³/6 composable pairs, not n⁴/4), in one flat array: g∘f for the k-th arrow g out
   * of cod f is composite[start[f] + k].
   */
  private readonly composite: Int32Array;
  private readonly start: Float64Array;
  /** slot[g]: the position of g among the arrows out of its domain. */
  private readonly slot: Int32Array;
  private readonly into: number[][];
  private readonly from: number[][];

  /** A category from its data; `compose(g, f)` is called once for every composable pair (cod f = dom g). */
  constructor(objects: readonly string[], arrows: readonly Arrow[], identities: readonly number[], compose: (g: number, f: number) => number) {
    this.objects = objects;
    this.arrows = arrows;
    this.identities = identities;
    this.into = objects.map(() => []);
    this.from = objects.map(() => []);
    this.slot = new Int32Array(arrows.length);
    arrows.forEach((a, i) => {
      this.into[a.cod]!.push(i);
      this.slot[i] = this.from[a.dom]!.push(i) - 1;
    });
    this.start = new Float64Array(arrows.length + 1);
    arrows.forEach((a, f) => (this.start[f + 1] = this.start[f]! + this.from[a.cod]!.length));
    this.composite = new Int32Array(this.start[arrows.length]!);
    for (let f = 0; f < arrows.length; f++) {
      const out = this.from[arrows[f]!.cod]!,
        at = this.start[f]!;
      for (let k = 0; k < out.length; k++) this.composite[at + k] = compose(out[k]!, f);
    }
  }

  /** The number of composable pairs (g, f), cod f = dom g: what storing the composition costs. */
  static composablePairs(arrows: readonly Arrow[], objects: number): number {
    const into = new Float64Array(objects),
      from = new Float64Array(objects);
    for (const a of arrows) {
      into[a.cod]!++;
      from[a.dom]!++;
    }
    return into.reduce((s, k, c) => s + k * from[c]!, 0);
  }

  /** g∘f ("first f, then g"); throws a ToposError naming both arrows when cod f ≠ dom g. */
  compose(g: number, f: number): number {
    const h = this.arrows[f]!.cod === this.arrows[g]!.dom ? this.composite[this.start[f]! + this.slot[g]!]! : -1;
    if (h < 0) {
      throw new ToposError(
        `cannot compose ${this.describe(g)} after ${this.describe(f)}: codomain ${this.objects[this.arrows[f]!.cod]} ≠ domain ${this.objects[this.arrows[g]!.dom]}`,
      );
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
    if (i < 0) throw new ToposError(`no object ${quote(name)}; objects: ${this.objects.join(', ')}`);
    return i;
  }

  /** The index of the arrow with this name. */
  arrow(name: string): number {
    const i = this.arrows.findIndex((a) => a.name === name);
    if (i < 0) throw new ToposError(`no arrow ${quote(name)}`);
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
    return this.arrows.map((a, g) => this.arrows.map((b, f) => (b.cod === a.dom ? this.arrows[this.compose(g, f)]!.name : '')));
  }

  /** The opposite category C^op: same arrows reversed, (f∘g)^op = g^op∘f^op. */
  opposite(): FiniteCategory {
    return new FiniteCategory(
      this.objects,
      this.arrows.map((a) => ({ name: a.name, dom: a.cod, cod: a.dom })),
      this.identities,
      (g, f) => this.compose(f, g),
    );
  }
}

/**
 * A finite category from explicit data, checked: every identity is a two-sided unit, the
 * composite of composable arrows exists and has the right ends, and composition is
 * associative (h∘g)∘f = h∘(g∘f). `compose(g, f)` returns g∘f for composable pairs.
 */
export function finiteCategory(
  objects: readonly string[],
  arrows: readonly Arrow[],
  identities: readonly number[],
  compose: (g: number, f: number) => number,
): FiniteCategory {
  const m = arrows.length;
  const C = new FiniteCategory(objects, arrows, identities, (g, f) => {
    const h = compose(g, f);
    if (!(Number.isInteger(h) && h >= 0 && h < m) || arrows[h]!.dom !== arrows[f]!.dom || arrows[h]!.cod !== arrows[g]!.cod) {
      throw new ToposError(
        `composite ${arrows[g]!.name}∘${arrows[f]!.name} must be an arrow ${objects[arrows[f]!.dom]} → ${objects[arrows[g]!.cod]}, got ${h >= 0 && h < m ? arrows[h]!.name : String(h)}`,
      );
    }
    return h;
  });
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
  // in a thin category (h∘g)∘f and h∘(g∘f) are arrows with the same ends, hence equal
  if (C.isThin()) return;
  for (let f = 0; f < arrows.length; f++) {
    for (const g of C.arrowsFrom(arrows[f]!.cod)) {
      const gf = C.compose(g, f);
      for (const h of C.arrowsFrom(arrows[g]!.cod)) {
        if (C.compose(C.compose(h, g), f) !== C.compose(h, gf)) {
          throw new ToposError(
            `associativity fails: (${arrows[h]!.name}∘${arrows[g]!.name})∘${arrows[f]!.name} ≠ ${arrows[h]!.name}∘(${arrows[g]!.name}∘${arrows[f]!.name})`,
          );
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
      if (!leq(a, b)) continue;
      if (a !== b && leq(b, a)) throw new ToposError(`not antisymmetric: ${elements[a]} ≤ ${elements[b]} and ${elements[b]} ≤ ${elements[a]} but they differ`);
      for (let c = 0; c < n; c++) {
        if (leq(b, c) && !leq(a, c))
          throw new ToposError(`not transitive: ${elements[a]} ≤ ${elements[b]} ≤ ${elements[c]} but not ${elements[a]} ≤ ${elements[c]}`);
      }
    }
  }
  return posetCategory(`poset of ${n} elements`, elements, leq);
}

/**
 * The category of a transitive relation `leq` on distinct elements (the caller guarantees
 * transitivity: a closure, or reachability along arrows), checked reflexive and antisymmetric,
 * refused (TooLargeError) when its composition would not fit, and built without re-checking
 * the laws: a poset is a thin category, so composition is determined and associative.
 */
export function posetCategory(what: string, elements: readonly string[], leq: (a: number, b: number) => boolean): FiniteCategory {
  const n = elements.length;
  const into = new Float64Array(n),
    from = new Float64Array(n);
  let m = 0;
  for (let a = 0; a < n; a++) {
    if (!leq(a, a)) throw new ToposError(`not reflexive: ${elements[a]} ≤ ${elements[a]} fails`);
    for (let b = 0; b < n; b++) {
      if (!leq(a, b)) continue;
      if (a !== b && leq(b, a)) throw new ToposError(`not antisymmetric: ${elements[a]} ≤ ${elements[b]} and ${elements[b]} ≤ ${elements[a]} but they differ`);
      m++;
      from[a]!++;
      into[b]!++;
    }
  }
  checkCategorySize(
    what,
    m,
    into.reduce((s, k, c) => s + k * from[c]!, 0),
  );
  const arrows: Arrow[] = [];
  const index = new Int32Array(n * n).fill(-1);
  const identities: number[] = [];
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      if (!leq(a, b)) continue;
      index[a * n + b] = arrows.length;
      if (a === b) identities[a] = arrows.length;
      arrows.push({ name: a === b ? `id_${elements[a]}` : `${elements[a]}≤${elements[b]}`, dom: a, cod: b });
    }
  }
  return new FiniteCategory(elements, arrows, identities, (g, f) => index[arrows[f]!.dom * n + arrows[g]!.cod]!);
}

/** The most elements a poset expression may name (its closure is n³/32 word operations). */
export const MAX_POSET_ELEMENTS = 2000;
/**
 * The most composable pairs a category built from an expression may have: its composition is
 * stored pair by pair (4 bytes each; a chain of n elements has about n³/6).
 */
export const MAX_COMPOSABLE_PAIRS = 2 ** 24;

/** The most elementary steps computing a category's composition may take (for a presented category: path concatenations). */
export const MAX_COMPOSITION_WORK = 2 ** 24;

/** Refuses a category of m arrows and p composable pairs (whose composition costs `work` steps) above the limits, with the estimate. */
export function checkCategorySize(what: string, m: number, p: number, work = p): void {
  const bytes = 4 * p + 160 * m;
  if (p > MAX_COMPOSABLE_PAIRS) {
    throw new TooLargeError(
      `${what} has ${formatCount(m)} arrows and ${formatCount(p)} composable pairs (about ${formatBytes(bytes)}); at most ${formatCount(MAX_COMPOSABLE_PAIRS)} pairs`,
      { elements: m, bytes, work },
    );
  }
  if (work > MAX_COMPOSITION_WORK) {
    throw new TooLargeError(
      `${what} has ${formatCount(m)} arrows whose composition takes about ${formatCount(work)} steps; at most ${formatCount(MAX_COMPOSITION_WORK)}`,
      { elements: m, bytes, work },
    );
  }
}

/**
 * Parses a poset written as generating relations, e.g. "a<b, a<c" or "0<1<2" (`<=` also
 * accepted), and returns its category: the reflexive–transitive closure of the relations
 * (Warshall's algorithm on bit rows), one arrow a → b exactly when a ≤ b (`posetCategory`).
 * A cycle such as "a<b, b<a" is not antisymmetric and throws a ToposError naming the pair; more than MAX_POSET_ELEMENTS elements or MAX_COMPOSABLE_PAIRS
 * composable pairs are refused (TooLargeError) before the category is built.
 */
export function parsePoset(text: string): FiniteCategory {
  const elements: string[] = [];
  const ids = new Map<string, number>();
  const id = (s: string): number => {
    const name = s.trim();
    if (!/^[\w★'.-]+$/u.test(name)) throw new ToposError(`poset element ${quote(name)} must be a name (letters, digits, _ . ' -)`);
    let i = ids.get(name);
    if (i === undefined) {
      ids.set(name, (i = elements.length));
      elements.push(name);
    }
    return i;
  };
  const pairs: [number, number][] = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p.length)) {
    const chain = part.split(/<=?/).map(id);
    for (let i = 0; i + 1 < chain.length; i++) pairs.push([chain[i]!, chain[i + 1]!]);
    if (elements.length > MAX_POSET_ELEMENTS)
      throw new TooLargeError(`poset ${quote(text)} names more than ${MAX_POSET_ELEMENTS} elements (the limit)`, { elements: elements.length });
  }
  if (!elements.length) throw new ToposError(`empty poset ${quote(text)}: write relations like "a<b, a<c"`);
  const n = elements.length,
    words = Math.ceil(n / 32);
  const rows = new Uint32Array(n * words);
  const le = (a: number, b: number): boolean => ((rows[a * words + (b >>> 5)]! >>> (b & 31)) & 1) === 1;
  const set = (a: number, b: number): void => void (rows[a * words + (b >>> 5)]! |= 1 << (b & 31));
  for (let a = 0; a < n; a++) set(a, a);
  for (const [a, b] of pairs) set(a, b);
  for (let k = 0; k < n; k++) {
    for (let a = 0; a < n; a++) if (le(a, k)) for (let w = 0; w < words; w++) rows[a * words + w]! |= rows[k * words + w]!;
  }
  return posetCategory(`poset ${quote(text)}`, elements, le);
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
