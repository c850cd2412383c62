import { FiniteCategory } from '../category/finite.js';
import type { Arrow } from '../category/finite.js';
import type { Group } from '../symmetry/group/group.js';
import { eye, matmul, permMatrix } from '../linalg/matrix.js';
import type { Mat } from '../linalg/matrix.js';
import { FunctorError } from '../category/errors.js';
import { formatBytes, TooLargeError } from '../errors.js';

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
  /** The arrows of G's generators (identity and repeats left out): they generate BG, so ends and coends need only them (generators.ts). */
  readonly generators: readonly number[];
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

/** The most memory a group category may take: its multiplication table and its elements (1 GiB). */
const MAX_GROUP_CATEGORY_BYTES = 2 ** 30;

/** Elements of a finite group as the enumeration sees them: permutations of V's basis when G has them, else matrices. */
interface Elements<E> {
  readonly identity: E;
  readonly generators: readonly E[];
  /** a∘b. */
  mul(a: E, b: E): E;
  key(e: E): string;
  /** Bytes one element takes (for the estimate). */
  readonly bytesEach: number;
}

const permElements = (G: Group): Elements<Int32Array> => ({
  identity: Int32Array.from({ length: G.d }, (_, i) => i),
  generators: G.perms!,
  mul: (a, b) => b.map((i) => a[i]!),
  key: (e) => e.join(','),
  bytesEach: 14 * G.d, // the permutation and its key
});

const matrixElements = (G: Group): Elements<Mat> => ({
  identity: eye(G.d),
  generators: G.discrete,
  mul: matmul,
  key: matKey,
  bytesEach: 40 * G.d * G.d,
});

/** The estimate of BG with m elements: the m² table and the elements; refused above the limit. */
function checkGroupSize(G: Group, m: number, bytesEach: number, maxOrder: number): void {
  if (m > maxOrder) {
    const count = m === Infinity ? 'over 1e308' : m === maxOrder + 1 ? 'more' : String(m);
    throw new TooLargeError(
      `${G.name} has more than ${maxOrder} elements (${count}), the limit --max-order; ends and coends over it enumerate every element (raise --max-order if you mean it)`,
      { elements: m },
    );
  }
  const bytes = 4 * m * m + m * bytesEach;
  if (bytes > MAX_GROUP_CATEGORY_BYTES) {
    throw new TooLargeError(
      `${G.name} as a category (${m} elements, an ${m}×${m} multiplication table) needs about ${formatBytes(bytes)}; the limit is ${formatBytes(MAX_GROUP_CATEGORY_BYTES)}`,
      { elements: m, bytes },
    );
  }
}

/**
 * Enumerates a finite group by closing its generators under products (breadth-first), and
 * builds BG with its full multiplication table. Throws a FunctorError when G has Lie
 * generators (it is not finite: use the equivariance solver's infinitesimal end instead), a
 * TooLargeError when it has more than `maxOrder` elements (default 1000; refused at once when
 * the expression gives the order, like S(1000)) or its table would not fit.
 *
 * Elements are permutations when G permutes points (d numbers each, not d×d matrices), and the
 * table costs O(|G|²) lookups: every f ≠ e was found as h_j∘f′ with f′ earlier, so
 * g∘f = (g∘h_j)∘f′ is an entry already filled, once g∘h_j is known for each generator.
 */
export function groupCategory(G: Group, opts: { maxOrder?: number } = {}): GroupCategory {
  const maxOrder = opts.maxOrder ?? 1000;
  if (G.lie.length > 0)
    throw new FunctorError(
      `${G.name} is a Lie group, not a finite one: ends over a finite category need a finite group (S(n), Z(n), D(n), Trans(…), Perm(…), O(1)); for ${G.name} use paralens derive`,
    );
  return G.perms ? enumerate(G, permElements(G), maxOrder) : enumerate(G, matrixElements(G), maxOrder);
}

function enumerate<E>(G: Group, E: Elements<E>, maxOrder: number): GroupCategory {
  if (G.order !== undefined) checkGroupSize(G, G.order, E.bytesEach, maxOrder);
  const elements: E[] = [E.identity];
  const parent = [-1],
    via = [-1]; // elements[k] = generators[via[k]] ∘ elements[parent[k]]
  const index = new Map<string, number>([[E.key(E.identity), 0]]);
  for (let k = 0; k < elements.length; k++) {
    E.generators.forEach((h, j) => {
      const g = E.mul(h, elements[k]!);
      const key = E.key(g);
      if (index.has(key)) return;
      if (elements.length >= maxOrder) checkGroupSize(G, maxOrder + 1, E.bytesEach, maxOrder);
      index.set(key, elements.length);
      elements.push(g);
      parent.push(k);
      via.push(j);
    });
  }
  const m = elements.length;
  checkGroupSize(G, m, E.bytesEach, maxOrder);
  const at = (e: E, what: () => string): number => {
    const i = index.get(E.key(e));
    if (i === undefined) throw new FunctorError(`${G.name}: ${what()} is not in the enumerated set (generators not closed under products)`);
    return i;
  };
  // right[j][g] = g∘h_j
  const right = E.generators.map((h, j) => Int32Array.from(elements, (g, i) => at(E.mul(g, h), () => `the product of element ${i} and generator ${j + 1}`)));
  const table = new Int32Array(m * m);
  for (let g = 0; g < m; g++) table[g * m] = g;
  for (let f = 1; f < m; f++) {
    const r = right[via[f]!]!,
      f0 = parent[f]!;
    for (let g = 0; g < m; g++) table[g * m + f] = table[r[g]! * m + f0]!;
  }
  const inverse = new Int32Array(m);
  for (let g = 0; g < m; g++) for (let f = 0; f < m; f++) if (table[g * m + f] === 0) inverse[g] = f;
  const words = elements.map((_, k) => {
    const w: string[] = [];
    for (let x = k; x > 0; x = parent[x]!) w.push(`h${via[x]! + 1}`);
    return w.length ? w.join('·') : 'e';
  });
  const generators = [...new Set(E.generators.map((h, j) => at(h, () => `generator ${j + 1}`)))].filter((g) => g !== 0);
  const perms = G.perms ? (elements as unknown as Int32Array[]) : undefined;
  const names = perms ? perms.map(cycleNotation) : words;
  const arrows: Arrow[] = names.map((name) => ({ name, dom: 0, cod: 0 }));
  const category = new FiniteCategory(['★'], arrows, [0], (g, f) => table[g * m + f]!);
  let matrices: Mat[] | undefined;
  return {
    group: G.name,
    category,
    order: m,
    perms,
    inverse,
    generators,
    // as matrices on V only when a representation asks (d×d each)
    get matrices() {
      return (matrices ??= perms ? perms.map(permMatrix) : (elements as unknown as Mat[]));
    },
  };
}
