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
      if (!leq(a, b)) continue;
      if (a !== b && leq(b, a)) throw new ToposError(`not antisymmetric: ${elements[a]} ≤ ${elements[b]} and ${elements[b]} ≤ ${elements[a]} but they differ`);
      for (let c = 0; c < n; c++) {
        if (leq(b, c) && !leq(a, c)) throw new ToposError(`not transitive: ${elements[a]} ≤ ${elements[b]} ≤ ${elements[c]} but not ${elements[a]} ≤ ${elements[c]}`);
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
