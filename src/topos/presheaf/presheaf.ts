import type { FiniteCategory } from '../../category/finite.js';
import { ToposError } from '../../category/errors.js';

/**
 * A presheaf P: C^op → FinSet on a finite category (Mac Lane–Moerdijk, *Sheaves in Geometry
 * and Logic*, §I.1): a finite set P(c) at every object (elements 0..|P(c)|−1, with labels)
 * and for every arrow f: a → b a restriction map P(f): P(b) → P(a), functorial:
 * P(id) = id and P(g∘f) = P(f)∘P(g). Build with `presheaf` (which checks functoriality) or
 * `presheafFromGenerators` (on a category presented by a graph).
 */
export class Presheaf {
  constructor(
    readonly category: FiniteCategory,
    /** elements[c][x] is the label of element x of P(c). */
    readonly elements: readonly (readonly string[])[],
    /** maps[f][x] = P(f)(x) for x ∈ P(cod f), an element of P(dom f). */
    readonly maps: readonly (readonly number[])[],
  ) {}

  size(c: number): number {
    return this.elements[c]!.length;
  }

  /** P(f)(x): restriction of x ∈ P(b) along f: a → b. */
  restrict(f: number, x: number): number {
    return this.maps[f]![x]!;
  }
}

/** A presheaf from its sets and restriction maps, checked (sizes, ranges, functoriality); errors name the failing arrow and element. */
export function presheaf(C: FiniteCategory, elements: readonly (readonly string[])[], maps: readonly (readonly number[])[]): Presheaf {
  if (elements.length !== C.objects.length) throw new ToposError(`presheaf needs a set at each of the ${C.objects.length} objects, got ${elements.length}`);
  if (maps.length !== C.arrows.length) throw new ToposError(`presheaf needs a map for each of the ${C.arrows.length} arrows, got ${maps.length}`);
  C.arrows.forEach((a, f) => {
    const m = maps[f]!;
    if (m.length !== elements[a.cod]!.length)
      throw new ToposError(`P(${C.describe(f)}) must map the ${elements[a.cod]!.length} elements of P(${C.objects[a.cod]}), got ${m.length} values`);
    m.forEach((y, x) => {
      if (!(Number.isInteger(y) && y >= 0 && y < elements[a.dom]!.length))
        throw new ToposError(`P(${C.describe(f)}) sends ${elements[a.cod]![x]} to ${y}, not an element of P(${C.objects[a.dom]})`);
    });
  });
  const P = new Presheaf(C, elements, maps);
  checkFunctorial(P);
  return P;
}

/** Throws a ToposError unless P(id) = id and P(g∘f) = P(f)∘P(g) for all composable f, g. */
export function checkFunctorial(P: Presheaf): void {
  const C = P.category;
  C.identities.forEach((i, c) => {
    for (let x = 0; x < P.size(c); x++)
      if (P.restrict(i, x) !== x) throw new ToposError(`presheaf not functorial: P(id_${C.objects[c]}) moves ${P.elements[c]![x]}`);
  });
  C.arrows.forEach((a, f) => {
    for (const g of C.arrowsFrom(a.cod)) {
      const gf = C.compose(g, f);
      const b = C.arrows[g]!.cod;
      for (let x = 0; x < P.size(b); x++) {
        if (P.restrict(gf, x) !== P.restrict(f, P.restrict(g, x))) {
          throw new ToposError(
            `presheaf not functorial: P(${C.arrows[g]!.name}∘${C.arrows[f]!.name}) ≠ P(${C.arrows[f]!.name})∘P(${C.arrows[g]!.name}) at ${P.elements[b]![x]} ∈ P(${C.objects[b]})`,
          );
        }
      }
    }
  });
}

/** A presheaf from a function (f, x) ↦ P(f)(x), tabulated and checked. */
export function presheafFromFunction(C: FiniteCategory, elements: readonly (readonly string[])[], restrict: (f: number, x: number) => number): Presheaf {
  return presheaf(
    C,
    elements,
    C.arrows.map((a, f) => elements[a.cod]!.map((_, x) => restrict(f, x))),
  );
}

/**
 * On a category presented by a graph (arrows carry their `path` of edges), a presheaf is
 * determined by one map per generating edge; P(e₁…eₖ) = P(e₁)∘…∘P(eₖ). `edgeMaps[e][x]`
 * restricts x ∈ P(tgt e) to P(src e). Functoriality is checked (it fails when the maps do
 * not satisfy the presentation's relations).
 */
export function presheafFromGenerators(C: FiniteCategory, elements: readonly (readonly string[])[], edgeMaps: readonly (readonly number[])[]): Presheaf {
  return presheafFromFunction(C, elements, (f, x) => {
    const path = C.arrows[f]!.path;
    if (!path) throw new ToposError('presheafFromGenerators needs a category built by categoryFromGraph');
    let y = x;
    for (let k = path.length - 1; k >= 0; k--) {
      const v = edgeMaps[path[k]!]![y];
      if (v === undefined) throw new ToposError(`edge map ${k} of ${C.arrows[f]!.name} has no value at element ${y}`);
      y = v;
    }
    return y;
  });
}

/** The terminal presheaf 1: one element • at every object. */
export function terminalPresheaf(C: FiniteCategory): Presheaf {
  return new Presheaf(
    C,
    C.objects.map(() => ['•']),
    C.arrows.map(() => [0]),
  );
}

/**
 * A morphism of presheaves α: P ⇒ Q (a natural transformation): components α_c: P(c) → Q(c)
 * with α_a∘P(f) = Q(f)∘α_b for every f: a → b (Mac Lane–Moerdijk §I.1).
 */
export interface PresheafMorphism {
  readonly source: Presheaf;
  readonly target: Presheaf;
  /** components[c][x] = α_c(x). */
  readonly components: readonly (readonly number[])[];
}

/** A morphism of presheaves, checked for naturality (the error names the arrow and element where the square fails). */
export function presheafMorphism(source: Presheaf, target: Presheaf, components: readonly (readonly number[])[]): PresheafMorphism {
  const C = source.category;
  if (target.category !== C) throw new ToposError('a morphism of presheaves needs both presheaves on the same category');
  C.objects.forEach((o, c) => {
    const comp = components[c];
    if (!comp || comp.length !== source.size(c)) throw new ToposError(`component at ${o} must have ${source.size(c)} values`);
    comp.forEach((y) => {
      if (!(Number.isInteger(y) && y >= 0 && y < target.size(c)))
        throw new ToposError(`component at ${o} sends an element to ${y}, outside the target's ${target.size(c)} elements`);
    });
  });
  C.arrows.forEach((a, f) => {
    for (let x = 0; x < source.size(a.cod); x++) {
      if (components[a.dom]![source.restrict(f, x)] !== target.restrict(f, components[a.cod]![x]!)) {
        throw new ToposError(`not natural at ${C.describe(f)}: α∘P(f) ≠ Q(f)∘α on ${source.elements[a.cod]![x]}`);
      }
    }
  });
  return { source, target, components };
}

/** The identity morphism P ⇒ P. */
export function identityMorphism(P: Presheaf): PresheafMorphism {
  return { source: P, target: P, components: P.elements.map((els) => els.map((_, x) => x)) };
}

/** β∘α (vertical composition: first α, then β). */
export function composeMorphisms(beta: PresheafMorphism, alpha: PresheafMorphism): PresheafMorphism {
  if (alpha.target !== beta.source) throw new ToposError('cannot compose: the target of α is not the source of β');
  return { source: alpha.source, target: beta.target, components: alpha.components.map((comp, c) => comp.map((x) => beta.components[c]![x]!)) };
}

/** The product P × Q (pointwise: (P×Q)(c) = P(c) × Q(c)) with its projections. Element (x, y) has index x·|Q(c)| + y. */
export function productPresheaf(P: Presheaf, Q: Presheaf): { product: Presheaf; first: PresheafMorphism; second: PresheafMorphism } {
  const C = P.category;
  const elements = C.objects.map((_, c) => P.elements[c]!.flatMap((x) => Q.elements[c]!.map((y) => `(${x},${y})`)));
  const maps = C.arrows.map((a, f) => {
    const out: number[] = [];
    for (let x = 0; x < P.size(a.cod); x++) for (let y = 0; y < Q.size(a.cod); y++) out.push(P.restrict(f, x) * Q.size(a.dom) + Q.restrict(f, y));
    return out;
  });
  const product = new Presheaf(C, elements, maps);
  const first = { source: product, target: P, components: C.objects.map((_, c) => elements[c]!.map((__, i) => Math.floor(i / Q.size(c)))) };
  const second = { source: product, target: Q, components: C.objects.map((_, c) => elements[c]!.map((__, i) => i % Q.size(c))) };
  return { product, first, second };
}

/**
 * The global sections H⁰(P) = lim P = Hom(1, P) (Mac Lane–Moerdijk §I.6): families (x_c)
 * with P(f)(x_b) = x_a for every f: a → b. Enumerated by backtracking over the objects
 * (each assignment is checked against all arrows between assigned objects); stops after `limit`.
 */
export function globalSections(P: Presheaf, limit = 100000): number[][] {
  const C = P.category;
  const n = C.objects.length;
  const s = new Array<number>(n).fill(-1);
  const out: number[][] = [];
  const consistent = (c: number): boolean => {
    for (const f of C.arrowsInto(c)) {
      const a = C.arrows[f]!.dom;
      if (a <= c && s[a] !== P.restrict(f, s[c]!)) return false;
    }
    for (const f of C.arrowsFrom(c)) {
      const b = C.arrows[f]!.cod;
      if (b < c && s[c] !== P.restrict(f, s[b]!)) return false;
    }
    return true;
  };
  const go = (c: number): void => {
    if (out.length >= limit) return;
    if (c === n) {
      out.push(s.slice());
      return;
    }
    for (let x = 0; x < P.size(c); x++) {
      s[c] = x;
      if (consistent(c)) go(c + 1);
    }
    s[c] = -1;
  };
  go(0);
  return out;
}
