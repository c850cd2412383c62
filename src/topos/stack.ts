import { finiteCategory } from './category.js';
import type { Arrow, FiniteCategory } from './category.js';
import { subobjectClassifier } from './sieve.js';
import type { SubobjectClassifier } from './sieve.js';
import { ToposError } from './topos-error.js';

/** A finite group by its multiplication table: mul[g][h] = g·h. */
export interface FiniteGroup {
  readonly elements: readonly string[];
  readonly mul: readonly (readonly number[])[];
  readonly identity: number;
  readonly inverse: readonly number[];
}

/** A finite group from its table, checked (identity, inverses, associativity). */
export function finiteGroup(elements: readonly string[], mul: readonly (readonly number[])[]): FiniteGroup {
  const n = elements.length;
  if (mul.length !== n || mul.some((r) => r.length !== n || r.some((v) => !(Number.isInteger(v) && v >= 0 && v < n)))) throw new ToposError(`group table must be ${n}×${n} with entries in 0…${n - 1}`);
  const identity = elements.findIndex((_, e) => elements.every((__, x) => mul[e]![x] === x && mul[x]![e] === x));
  if (identity < 0) throw new ToposError('group table has no identity element');
  const inverse = elements.map((_, g) => {
    const h = elements.findIndex((__, k) => mul[g]![k] === identity && mul[k]![g] === identity);
    if (h < 0) throw new ToposError(`group element ${elements[g]} has no inverse`);
    return h;
  });
  for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) for (let c = 0; c < n; c++) {
    if (mul[mul[a]![b]!]![c] !== mul[a]![mul[b]![c]!]) throw new ToposError(`group table not associative at (${elements[a]}·${elements[b]})·${elements[c]}`);
  }
  return { elements, mul, identity, inverse };
}

/** The cyclic group ℤ/n (element k is the shift by k). */
export function cyclicGroup(n: number): FiniteGroup {
  if (!(Number.isInteger(n) && n >= 1)) throw new ToposError(`cyclic group order must be a positive integer, got ${n}`);
  return finiteGroup(Array.from({ length: n }, (_, k) => String(k)), Array.from({ length: n }, (_, a) => Array.from({ length: n }, (__, b) => (a + b) % n)));
}

/**
 * A presheaf of groups F on C (Belfiore–Bennequin §2.1; Giraud's stacks in the case where
 * every fibre is a group seen as a one-object groupoid): a group F(U) per object and a
 * homomorphism F_β: F(U) → F(V) per arrow β: V → U, functorial.
 */
export interface GroupPresheaf {
  readonly category: FiniteCategory;
  readonly groups: readonly FiniteGroup[];
  /** maps[β][g] = F_β(g) for g ∈ F(cod β). */
  readonly maps: readonly (readonly number[])[];
}

/** A presheaf of groups, checked: each F_β is a homomorphism, F(id) = id, F(α∘β) = F_β∘F_α. */
export function groupPresheaf(C: FiniteCategory, groups: readonly FiniteGroup[], maps: readonly (readonly number[])[]): GroupPresheaf {
  C.arrows.forEach((a, f) => {
    const G = groups[a.cod]!;
    const H = groups[a.dom]!;
    const m = maps[f]!;
    if (m.length !== G.elements.length) throw new ToposError(`F(${C.describe(f)}) must map the ${G.elements.length} elements of F(${C.objects[a.cod]})`);
    for (let g = 0; g < m.length; g++) for (let h = 0; h < m.length; h++) {
      if (m[G.mul[g]![h]!] !== H.mul[m[g]!]![m[h]!]) throw new ToposError(`F(${C.describe(f)}) is not a homomorphism at ${G.elements[g]}·${G.elements[h]}`);
    }
    for (const g2 of C.arrowsFrom(a.cod)) {
      const gf = C.compose(g2, f);
      const K = groups[C.arrows[g2]!.cod]!;
      for (let k = 0; k < K.elements.length; k++) {
        if (maps[gf]![k] !== m[maps[g2]![k]!]) throw new ToposError(`presheaf of groups not functorial: F(${C.arrows[g2]!.name}∘${a.name}) ≠ F(${a.name})∘F(${C.arrows[g2]!.name})`);
      }
    }
  });
  C.identities.forEach((i, c) => {
    if (maps[i]!.some((v, g) => v !== g)) throw new ToposError(`F(id_${C.objects[c]}) is not the identity`);
  });
  return { category: C, groups, maps };
}

/**
 * The Grothendieck construction ∫F (Belfiore–Bennequin §2.1; Mac Lane–Moerdijk §I.5 for the
 * discrete case): objects (U, •), one per object of C (the fibre F(U) is a one-object
 * groupoid); arrows (α, g): (V, •) → (U, •) for α: V → U in C and g ∈ F(V); composition
 * (α, g)∘(β, h) = (αβ, F_β(g)·h). The identity and associativity laws are checked.
 */
export function grothendieckConstruction(F: GroupPresheaf): FiniteCategory {
  const C = F.category;
  const arrows: Arrow[] = [];
  const index = new Map<string, number>();
  C.arrows.forEach((a, f) => {
    F.groups[a.dom]!.elements.forEach((g, gi) => {
      index.set(`${f},${gi}`, arrows.length);
      arrows.push({ name: `(${a.name},${g})`, dom: a.dom, cod: a.cod });
    });
  });
  const pairs = C.arrows.flatMap((a, f) => F.groups[a.dom]!.elements.map((_, g) => [f, g] as const));
  const identities = C.identities.map((i, c) => index.get(`${i},${F.groups[c]!.identity}`)!);
  return finiteCategory(C.objects.map((o) => `(${o},•)`), arrows, identities, (x, y) => {
    const [alpha, g] = pairs[x]!;
    const [beta, h] = pairs[y]!;
    const W = F.groups[C.arrows[beta]!.dom]!;
    return index.get(`${C.compose(alpha, beta)},${W.mul[F.maps[beta]![g]!]![h]!}`)!;
  });
}

/** Ω_F, the subobject classifier of presheaves on ∫F: sieves in the Grothendieck construction (Belfiore–Bennequin §2.2). */
export function stackClassifier(F: GroupPresheaf): { total: FiniteCategory; omega: SubobjectClassifier } {
  const total = grothendieckConstruction(F);
  return { total, omega: subobjectClassifier(total) };
}
