import type { FiniteCategory } from './finite.js';
import { FunctorError } from './errors.js';

/**
 * A functor F: C^op × C → FinSet on a finite category C, given (Mac Lane, *Categories for the
 * Working Mathematician*, §II.3, Prop. 1) by its two one-variable actions:
 *
 *   F(f, b) := F(f, id_b): F(a', b) → F(a, b)   for f: a → a'  (contravariant in the first slot)
 *   F(a, g) := F(id_a, g): F(a, b) → F(a, b')   for g: b → b'  (covariant in the second)
 *
 * which must be functors in each variable and commute, F(a, g)∘F(f, b) = F(f, b')∘F(a', g);
 * then F(f, g) is either composite. F(a, b) is the finite set {0, …, size(a, b) − 1}; maps are
 * index tables (`table[x]` is the image of x).
 */
export interface SetDifunctor {
  readonly name: string;
  readonly category: FiniteCategory;
  /** |F(a, b)|. */
  size(a: number, b: number): number;
  /** A readable name for the element x of F(a, b). */
  element(a: number, b: number, x: number): string;
  /** F(f, id_b): F(cod f, b) → F(dom f, b). */
  left(f: number, b: number): Int32Array;
  /** F(id_a, g): F(a, dom g) → F(a, cod g). */
  right(a: number, g: number): Int32Array;
}

/** The data of a set-valued difunctor; `setDifunctor` memoises the tables and checks the laws. */
export interface SetDifunctorSpec {
  readonly name: string;
  readonly category: FiniteCategory;
  size(a: number, b: number): number;
  element?(a: number, b: number, x: number): string;
  left(f: number, b: number): ArrayLike<number>;
  right(a: number, g: number): ArrayLike<number>;
}

/**
 * Builds a set-valued functor C^op × C → Set from its actions, memoising every table, and
 * (unless `check: false`) checks functoriality with `checkSetDifunctor`.
 */
export function setDifunctor(spec: SetDifunctorSpec, opts: { check?: boolean } = {}): SetDifunctor {
  const C = spec.category;
  const n = C.objects.length;
  const sizes = new Int32Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const s = spec.size(a, b);
      if (!(Number.isInteger(s) && s >= 0))
        throw new FunctorError(`${spec.name}(${C.objects[a]}, ${C.objects[b]}) must be a finite set (a size ≥ 0), got ${s}`);
      sizes[a * n + b] = s;
    }
  }
  const leftCache = new Map<number, Int32Array>();
  const rightCache = new Map<number, Int32Array>();
  const F: SetDifunctor = {
    name: spec.name,
    category: C,
    size: (a, b) => sizes[a * n + b]!,
    element: (a, b, x) => (spec.element ? spec.element(a, b, x) : String(x)),
    left(f, b) {
      const key = f * n + b;
      let t = leftCache.get(key);
      if (!t)
        leftCache.set(
          key,
          (t = tableOf(
            spec.left(f, b),
            sizes[C.arrows[f]!.cod * n + b]!,
            sizes[C.arrows[f]!.dom * n + b]!,
            () => `${spec.name}(${C.describe(f)}, ${C.objects[b]})`,
          )),
        );
      return t;
    },
    right(a, g) {
      const key = a * C.arrows.length + g;
      let t = rightCache.get(key);
      if (!t)
        rightCache.set(
          key,
          (t = tableOf(
            spec.right(a, g),
            sizes[a * n + C.arrows[g]!.dom]!,
            sizes[a * n + C.arrows[g]!.cod]!,
            () => `${spec.name}(${C.objects[a]}, ${C.describe(g)})`,
          )),
        );
      return t;
    },
  };
  if (opts.check !== false) checkSetDifunctor(F);
  return F;
}

/** Checks a table is a function from a set of size `from` into a set of size `to`. */
function tableOf(t: ArrayLike<number>, from: number, to: number, where: () => string): Int32Array {
  if (t.length !== from) throw new FunctorError(`${where()} must map ${from} elements but its table has ${t.length}`);
  const out = Int32Array.from(t);
  out.forEach((y, x) => {
    if (!(Number.isInteger(y) && y >= 0 && y < to)) throw new FunctorError(`${where()} sends element ${x} to ${y}, outside its codomain of ${to} elements`);
  });
  return out;
}

const equalTables = (p: Int32Array, q: Int32Array): number => {
  for (let x = 0; x < p.length; x++) if (p[x] !== q[x]) return x;
  return -1;
};

const composeTables = (second: Int32Array, first: Int32Array): Int32Array => first.map((y) => second[y]!);

/**
 * Checks the laws of Mac Lane §II.3 Prop. 1: identities act as identities, each slot is a
 * functor (contravariant: F(g∘f, b) = F(f, b)∘F(g, b); covariant: F(a, g∘f) = F(a, g)∘F(a, f)),
 * and the two actions commute. Throws a FunctorError naming the arrows, object and element.
 */
export function checkSetDifunctor(F: SetDifunctor): void {
  const C = F.category;
  const n = C.objects.length;
  const m = C.arrows.length;
  const o = (c: number): string => C.objects[c]!;
  for (let c = 0; c < n; c++) {
    const id = C.identities[c]!;
    for (let b = 0; b < n; b++) {
      const x = F.left(id, b).findIndex((y, i) => y !== i);
      if (x >= 0) throw new FunctorError(`${F.name} is not functorial: ${F.name}(id_${o(c)}, ${o(b)}) moves element ${F.element(c, b, x)}`);
      const z = F.right(b, id).findIndex((y, i) => y !== i);
      if (z >= 0) throw new FunctorError(`${F.name} is not functorial: ${F.name}(${o(b)}, id_${o(c)}) moves element ${F.element(b, c, z)}`);
    }
  }
  for (let f = 0; f < m; f++) {
    for (const g of C.arrowsFrom(C.arrows[f]!.cod)) {
      const gf = C.compose(g, f);
      const name = `${C.arrows[g]!.name}∘${C.arrows[f]!.name}`;
      for (let b = 0; b < n; b++) {
        const x = equalTables(F.left(gf, b), composeTables(F.left(f, b), F.left(g, b)));
        if (x >= 0)
          throw new FunctorError(
            `${F.name} is not functorial in its first (contravariant) slot at ${name}: ${F.name}(${name}, ${o(b)}) ≠ ${F.name}(${C.arrows[f]!.name}, ${o(b)})∘${F.name}(${C.arrows[g]!.name}, ${o(b)}) on element ${F.element(C.arrows[g]!.cod, b, x)}`,
          );
        const y = equalTables(F.right(b, gf), composeTables(F.right(b, g), F.right(b, f)));
        if (y >= 0)
          throw new FunctorError(
            `${F.name} is not functorial in its second slot at ${name}: ${F.name}(${o(b)}, ${name}) ≠ ${F.name}(${o(b)}, ${C.arrows[g]!.name})∘${F.name}(${o(b)}, ${C.arrows[f]!.name}) on element ${F.element(b, C.arrows[f]!.dom, y)}`,
          );
      }
    }
  }
  for (let f = 0; f < m; f++) {
    const { dom: a, cod: a2 } = C.arrows[f]!;
    for (let g = 0; g < m; g++) {
      const { dom: b, cod: b2 } = C.arrows[g]!;
      const x = equalTables(composeTables(F.right(a, g), F.left(f, b)), composeTables(F.left(f, b2), F.right(a2, g)));
      if (x >= 0)
        throw new FunctorError(
          `${F.name} is not a bifunctor: its two actions do not commute at f = ${C.describe(f)}, g = ${C.describe(g)} (${F.name}(${o(a)}, g)∘${F.name}(f, ${o(b)}) ≠ ${F.name}(f, ${o(b2)})∘${F.name}(${o(a2)}, g) on element ${F.element(a2, b, x)})`,
        );
    }
  }
}
