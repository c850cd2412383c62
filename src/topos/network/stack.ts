import { finiteCategory } from '../../category/finite.js';
import type { Arrow, FiniteCategory } from '../../category/finite.js';
import { subobjectClassifier } from '../presheaf/sieve.js';
import type { SubobjectClassifier } from '../presheaf/sieve.js';
import { ToposError } from '../../category/errors.js';

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
  if (mul.length !== n || mul.some((r) => r.length !== n || r.some((v) => !(Number.isInteger(v) && v >= 0 && v < n))))
    throw new ToposError(`group table must be ${n}×${n} with entries in 0…${n - 1}`);
  const identity = elements.findIndex((_, e) => elements.every((__, x) => mul[e]![x] === x && mul[x]![e] === x));
  if (identity < 0) throw new ToposError('group table has no identity element');
  const inverse = elements.map((_, g) => {
    const h = elements.findIndex((__, k) => mul[g]![k] === identity && mul[k]![g] === identity);
    if (h < 0) throw new ToposError(`group element ${elements[g]} has no inverse`);
    return h;
  });
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++)
      for (let c = 0; c < n; c++) {
        if (mul[mul[a]![b]!]![c] !== mul[a]![mul[b]![c]!])
          throw new ToposError(`group table not associative at (${elements[a]}·${elements[b]})·${elements[c]}`);
      }
  return { elements, mul, identity, inverse };
}

/** The cyclic group ℤ/n (element k is the shift by k). */
export function cyclicGroup(n: number): FiniteGroup {
  if (!(Number.isInteger(n) && n >= 1)) throw new ToposError(`cyclic group order must be a positive integer, got ${n}`);
  return finiteGroup(
    Array.from({ length: n }, (_, k) => String(k)),
    Array.from({ length: n }, (_, a) => Array.from({ length: n }, (__, b) => (a + b) % n)),
  );
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
    for (let g = 0; g < m.length; g++)
      for (let h = 0; h < m.length; h++) {
        if (m[G.mul[g]![h]!] !== H.mul[m[g]!]![m[h]!]) throw new ToposError(`F(${C.describe(f)}) is not a homomorphism at ${G.elements[g]}·${G.elements[h]}`);
      }
    for (const g2 of C.arrowsFrom(a.cod)) {
      const gf = C.compose(g2, f);
      const K = groups[C.arrows[g2]!.cod]!;
      for (let k = 0; k < K.elements.length; k++) {
        if (maps[gf]![k] !== m[maps[g2]![k]!])
          throw new ToposError(`presheaf of groups not functorial: F(${C.arrows[g2]!.name}∘${a.name}) ≠ F(${a.name})∘F(${C.arrows[g2]!.name})`);
      }
    }
  });
  C.identities.forEach((i, c) => {
    if (maps[i]!.some((v, g) => v !== g)) throw new ToposError(`F(id_${C.objects[c]}) is not the identity`);
  });
  return { category: C, groups, maps };
}

/**
 * A presheaf of sets S with an action of the presheaf of groups F (Belfiore–Bennequin §2.1:
 * the fibre over U is the action groupoid S(U)//F(U), objects ξ ∈ S(U), arrows g: ξ → g·ξ):
 * act[U][g][ξ] = g·ξ, and the restrictions are equivariant, S_β(g·ξ) = F_β(g)·S_β(ξ).
 */
export interface GroupAction {
  readonly sets: readonly (readonly string[])[];
  readonly act: readonly (readonly (readonly number[])[])[];
  /** restrict[β][ξ] = S_β(ξ) for ξ ∈ S(cod β). */
  readonly restrict: readonly (readonly number[])[];
}

/** A group action on a presheaf, checked: action laws at every object and equivariance along every arrow (errors name them). */
export function groupAction(
  F: GroupPresheaf,
  sets: readonly (readonly string[])[],
  act: readonly (readonly (readonly number[])[])[],
  restrict: readonly (readonly number[])[],
): GroupAction {
  const C = F.category;
  C.objects.forEach((o, U) => {
    const G = F.groups[U]!;
    const S = sets[U]!;
    const a = act[U]!;
    S.forEach((xi, x) => {
      if (a[G.identity]![x] !== x) throw new ToposError(`the identity of F(${o}) moves ${xi}`);
      for (let g = 0; g < G.elements.length; g++)
        for (let h = 0; h < G.elements.length; h++) {
          if (a[G.mul[g]![h]!]![x] !== a[g]![a[h]![x]!])
            throw new ToposError(`not an action at ${o}: (${G.elements[g]}·${G.elements[h]})·${xi} ≠ ${G.elements[g]}·(${G.elements[h]}·${xi})`);
        }
    });
  });
  C.arrows.forEach((arr, b) => {
    const G = F.groups[arr.cod]!;
    sets[arr.cod]!.forEach((xi, x) => {
      for (let g = 0; g < G.elements.length; g++) {
        if (restrict[b]![act[arr.cod]![g]![x]!] !== act[arr.dom]![F.maps[b]![g]!]![restrict[b]![x]!]) {
          throw new ToposError(`restriction along ${C.describe(b)} is not equivariant: S(${G.elements[g]}·${xi}) ≠ F(${G.elements[g]})·S(${xi})`);
        }
      }
    });
  });
  return { sets, act, restrict };
}

/** The trivial action of F on the one-point presheaf: ∫F then has one object (U, •) per U. */
export function pointAction(F: GroupPresheaf): GroupAction {
  return { sets: F.groups.map(() => ['•']), act: F.groups.map((G) => G.elements.map(() => [0])), restrict: F.maps.map(() => [0]) };
}

/**
 * The Grothendieck construction ∫F of the fibred groupoid S//F (Belfiore–Bennequin §2.1;
 * Giraud; Mac Lane–Moerdijk §I.5 in the discrete case): objects (U, ξ) with ξ ∈ S(U);
 * arrows (α, g): (V, η) → (U, ξ) for α: V → U in C and g ∈ F(V) with g·η = S_α(ξ);
 * composition (α, g)∘(β, h) = (αβ, F_β(g)·h). Without an action (S = the point) the objects
 * are (U, •) and every (α, g) is an arrow. The category laws are checked.
 */
export function grothendieckConstruction(F: GroupPresheaf, action: GroupAction = pointAction(F)): FiniteCategory {
  const C = F.category;
  const { sets, act, restrict } = action;
  const trivial = sets.every((s) => s.length === 1);
  const objects: string[] = [];
  const objectOf = C.objects.map((o, U) => sets[U]!.map((xi) => objects.push(trivial ? `(${o},•)` : `(${o},${xi})`) - 1));
  const arrows: Arrow[] = [];
  const parts: [number, number, number, number][] = []; // α, g, η, ξ
  const index = new Map<string, number>();
  C.arrows.forEach((a, alpha) => {
    const G = F.groups[a.dom]!;
    sets[a.cod]!.forEach((xi, x) =>
      sets[a.dom]!.forEach((eta, y) =>
        G.elements.forEach((g, gi) => {
          if (act[a.dom]![gi]![y] !== restrict[alpha]![x]) return;
          index.set(`${alpha},${gi},${y},${x}`, arrows.length);
          parts.push([alpha, gi, y, x]);
          arrows.push({ name: trivial ? `(${a.name},${g})` : `(${a.name},${g}):${eta}→${xi}`, dom: objectOf[a.dom]![y]!, cod: objectOf[a.cod]![x]! });
        }),
      ),
    );
  });
  const identities = objects.map((_, o) => {
    const U = objectOf.findIndex((os) => os.includes(o));
    const x = objectOf[U]!.indexOf(o);
    return index.get(`${C.identities[U]},${F.groups[U]!.identity},${x},${x}`)!;
  });
  return finiteCategory(objects, arrows, identities, (p, q) => {
    const [alpha, g, , xi] = parts[p]!;
    const [beta, h, zeta] = parts[q]!;
    const W = F.groups[C.arrows[beta]!.dom]!;
    return index.get(`${C.compose(alpha, beta)},${W.mul[F.maps[beta]![g]!]![h]!},${zeta},${xi}`)!;
  });
}

/** Ω_F, the subobject classifier of presheaves on ∫F: sieves in the Grothendieck construction (Belfiore–Bennequin §2.2). */
export function stackClassifier(F: GroupPresheaf, action?: GroupAction): { total: FiniteCategory; omega: SubobjectClassifier } {
  const total = grothendieckConstruction(F, action);
  return { total, omega: subobjectClassifier(total) };
}
