import type { Mat } from '../linalg/matrix.js';
import { nullspace } from '../linalg/nullspace.js';
import { fromTriples } from '../linalg/sparse.js';
import type { Sparse } from '../linalg/sparse.js';
import type { SetDifunctor } from '../category/set-functor.js';
import type { VectDifunctor } from '../category/vect-functor.js';
import { generatingArrows } from './generators.js';
import { leftEntries, rightEntries } from './entries.js';
import type { MatEntries, SparseActions } from './entries.js';

/**
 * A wedge x = (x_c ∈ F(c, c))_c: for every f: c → c', F(c, f)(x_c) = F(f, c')(x_{c'}) in F(c, c')
 * (Mac Lane §IX.4). `elements[c]` is x_c.
 */
export interface Wedge {
  readonly elements: readonly number[];
}

/** The set-valued end ∫_c F(c, c): all wedges (the first `limit` listed, all counted). */
export interface SetEnd {
  readonly functor: string;
  readonly count: number;
  readonly wedges: readonly Wedge[];
  /** Whether `wedges` lists every wedge. */
  readonly complete: boolean;
}

/**
 * The end of a set-valued F: C^op × C → Set as an equaliser (Mac Lane §IX.5):
 *
 *   ∫_c F(c, c) → Π_c F(c, c) ⇉ Π_{f: c→c'} F(c, c')
 *
 * the two arrows sending x to F(c, f)(x_c) and F(f, c')(x_{c'}). Computed by backtracking over
 * the objects in order, checking each arrow's equation as soon as both its ends are chosen —
 * for the generating arrows only (`arrows`, default generatingArrows(C)): the others follow.
 */
export function setEnd(F: SetDifunctor, opts: { limit?: number; arrows?: readonly number[] } = {}): SetEnd {
  const C = F.category;
  const n = C.objects.length;
  const limit = opts.limit ?? 1000;
  // constraints checked when object max(c, c') is assigned: one per generating arrow
  const due: { f: number; c: number; c2: number }[][] = Array.from({ length: n }, () => []);
  for (const f of opts.arrows ?? generatingArrows(C)) {
    const a = C.arrows[f]!;
    if (!C.isIdentity(f)) due[Math.max(a.dom, a.cod)]!.push({ f, c: a.dom, c2: a.cod });
  }
  const x = new Array<number>(n).fill(0);
  const wedges: Wedge[] = [];
  let count = 0;
  const go = (k: number): void => {
    if (k === n) {
      count++;
      if (wedges.length < limit) wedges.push({ elements: x.slice() });
      return;
    }
    const size = F.size(k, k);
    for (let v = 0; v < size; v++) {
      x[k] = v;
      if (due[k]!.every(({ f, c, c2 }) => F.right(c, f)[x[c]!] === F.left(f, c2)[x[c2]!])) go(k + 1);
    }
  };
  go(0);
  return { functor: F.name, count, wedges, complete: count <= limit };
}

/** The vector-valued end: a subspace of ⊕_c F(c, c) with an orthonormal basis. */
export interface VectEnd {
  readonly functor: string;
  readonly dim: number;
  /** dim × total: row k is the k-th basis wedge, its F(c, c) component at offsets[c]. */
  readonly basis: Mat;
  /** offsets[c] where F(c, c) starts in ⊕_c F(c, c); offsets[n] = total. */
  readonly offsets: readonly number[];
  /** How many equations (rows F(c, c') over the generating arrows) cut it out. */
  readonly equations: number;
}

/** Offsets of the summands F(c, c) in ⊕_c F(c, c). */
export function diagonalOffsets(dim: (c: number) => number, n: number): number[] {
  const off = [0];
  for (let c = 0; c < n; c++) off.push(off[c]! + dim(c));
  return off;
}

/**
 * The end of F: C^op × C → Vect, the equaliser of ⊕_c F(c, c) ⇉ ⊕_{f: c→c'} F(c, c'), i.e. the
 * kernel of the difference x ↦ (F(c, f)x_c − F(f, c')x_{c'})_f (Mac Lane §IX.5; Loregian,
 * *(Co)end Calculus*, Def. 1.1.4). The basis comes from the nullspace solver of
 * `src/symmetry` (pivoted Cholesky on the normal equations). Identity arrows give no
 * equation, and only generating arrows are needed (`arrows`, default generatingArrows(C)): the
 * equation of a composite follows from its factors'.
 */
export function vectEnd(F: VectDifunctor & Partial<SparseActions>, opts: { tol?: number; arrows?: readonly number[] } = {}): VectEnd {
  const C = F.category;
  const n = C.objects.length;
  const offsets = diagonalOffsets((c) => F.dim(c, c), n);
  const total = offsets[n]!;
  const blocks: Sparse[] = [fromTriples(0, total, [], [], [])];
  let equations = 0;
  for (const f of opts.arrows ?? generatingArrows(C)) {
    const a = C.arrows[f]!;
    if (C.isIdentity(f)) continue;
    const R = rightEntries(F, a.dom, f); // F(c, c) → F(c, c')
    const L = leftEntries(F, f, a.cod); // F(c', c') → F(c, c')
    const r: number[] = [],
      col: number[] = [],
      v: number[] = [];
    const put = (M: MatEntries, off: number, s: number): void => {
      for (let e = 0; e < M.value.length; e++) (r.push(M.row[e]!), col.push(off + M.col[e]!), v.push(s * M.value[e]!));
    };
    put(R, offsets[a.dom]!, 1);
    put(L, offsets[a.cod]!, -1);
    blocks.push(fromTriples(R.rows, total, r, col, v));
    equations += R.rows;
  }
  const basis = total === 0 ? { rows: 0, cols: 0, data: new Float64Array(0) } : nullspace(blocks, { tol: opts.tol });
  return { functor: F.name, dim: basis.rows, basis, offsets, equations };
}

/** The F(c, c) component of the k-th basis wedge. */
export function wedgeComponent(E: VectEnd, k: number, c: number): Float64Array {
  return E.basis.data.slice(k * E.basis.cols + E.offsets[c]!, k * E.basis.cols + E.offsets[c + 1]!);
}
