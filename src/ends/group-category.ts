import { FiniteCategory } from '../category/finite.js';
import type { Arrow } from '../category/finite.js';
import type { Group } from '../equivariant/group/group.js';
import { matmul, permMatrix } from '../linalg/matrix.js';
import type { Mat } from '../linalg/matrix.js';
import { FunctorError } from '../category/errors.js';

/**
 * A finite group G as a one-object category BG (Mac Lane §I.2): one object ★, one arrow per
 * element, composition the group product g∘h = gh. `matrices[g]` is g acting on V (the
 * group's standard representation), so representations ρ(g) = repMatrix(ρ, matrices[g]).
 */
export interface GroupCategory {
  readonly group: string;
  readonly category: FiniteCategory;
  readonly order: number;
  /** Each element as a matrix on V = R^d. */
  readonly matrices: readonly Mat[];
  /** Each element as a permutation of V's basis, when G is a permutation group. */
  readonly perms?: readonly Int32Array[];
  /** inverse[g] is g⁻¹. */
  readonly inverse: Int32Array;
}

/** Cycle notation of a permutation, e.g. "(0 1 2)(3 4)", or "e" for the identity. */
export function cycleNotation(p: ArrayLike<number>): string {
  const seen = new Uint8Array(p.length);
  let out = '';
  for (let i = 0; i < p.length; i++) {
    if (seen[i] || p[i] === i) continue;
    const cyc: number[] = [];
    for (let j = i; !seen[j]; j = p[j]!) {
      seen[j] = 1;
      cyc.push(j);
    }
    out += `(${cyc.join(' ')})`;
  }
  return out || 'e';
}

const matKey = (m: Mat): string => Array.from(m.data, (v) => Math.round(v * 1e8)).join(',');

/**
 * Enumerates a finite group by closing its generators under products (breadth-first), and
 * builds BG with its full multiplication table. Throws a FunctorError when G has Lie
 * generators (it is not finite: use the equivariance solver's infinitesimal end instead) or
 * more than `maxOrder` elements (default 1000).
 */
export function groupCategory(G: Group, opts: { maxOrder?: number } = {}): GroupCategory {
  const maxOrder = opts.maxOrder ?? 1000;
  if (G.lie.length > 0) throw new FunctorError(`${G.name} is a Lie group, not a finite one: ends over a finite category need a finite group (S(n), Z(n), D(n), Trans(…), Perm(…), O(1)); for ${G.name} use paralens derive`);
  const d = G.d;
  const usePerms = G.perms !== undefined;
  const gens: Mat[] = usePerms ? G.perms!.map(permMatrix) : [...G.discrete];
  const identity = permMatrix(Int32Array.from({ length: d }, (_, i) => i));
  const elements: Mat[] = [identity];
  const perms: Int32Array[] = [Int32Array.from({ length: d }, (_, i) => i)];
  const words: string[] = ['e'];
  const index = new Map<string, number>([[matKey(identity), 0]]);
  for (let k = 0; k < elements.length; k++) {
    gens.forEach((h, j) => {
      const g = matmul(h, elements[k]!);
      const key = matKey(g);
      if (index.has(key)) return;
      if (elements.length >= maxOrder) throw new FunctorError(`${G.name} has more than ${maxOrder} elements; ends and coends over it enumerate every element (raise maxOrder / --max-order if you mean it)`);
      index.set(key, elements.length);
      elements.push(g);
      if (usePerms) perms.push(perms[k]!.map((i) => G.perms![j]![i]!)); // h∘σ
      words.push(words[k] === 'e' ? `h${j + 1}` : `h${j + 1}·${words[k]}`);
    });
  }
  const m = elements.length;
  const table = new Int32Array(m * m);
  for (let g = 0; g < m; g++) {
    for (let f = 0; f < m; f++) {
      const gf = index.get(matKey(matmul(elements[g]!, elements[f]!)));
      if (gf === undefined) throw new FunctorError(`${G.name}: the product of elements ${g} and ${f} is not in the enumerated set (generators not closed under products)`);
      table[g * m + f] = gf;
    }
  }
  const inverse = new Int32Array(m);
  for (let g = 0; g < m; g++) for (let f = 0; f < m; f++) if (table[g * m + f] === 0) inverse[g] = f;
  const names = usePerms ? perms.map(cycleNotation) : words;
  const arrows: Arrow[] = names.map((name) => ({ name, dom: 0, cod: 0 }));
  const category = new FiniteCategory(['★'], arrows, [0], table);
  return { group: G.name, category, order: m, matrices: elements, perms: usePerms ? perms : undefined, inverse };
}
