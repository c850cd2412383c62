import type { Group } from './group.js';
import { eye, inverse, kron, mat, matmul, transpose } from '../../linalg/matrix.js';
import type { Mat } from '../../linalg/matrix.js';
import { sparseEye, sparseFromDense, sparseKron, sparseLinComb } from '../../linalg/sparse.js';
import type { Sparse } from '../../linalg/sparse.js';

/**
 * A representation, written independently of the group (EMLP's `V`, `T(k)`, `⊕`, `⊗`,
 * duals): the group fixes what V is, and every other representation is built from it.
 */
export type Rep =
  | { readonly kind: 'trivial' }
  | { readonly kind: 'V' }
  | { readonly kind: 'dual'; readonly of: Rep }
  | { readonly kind: 'sum'; readonly parts: readonly Rep[] }
  | { readonly kind: 'tensor'; readonly factors: readonly Rep[] };

export const trivial: Rep = { kind: 'trivial' };
export const V: Rep = { kind: 'V' };
export const dual = (of: Rep): Rep => ({ kind: 'dual', of });
export const sum = (...parts: Rep[]): Rep => (parts.length === 1 ? parts[0]! : { kind: 'sum', parts });
export const tensorRep = (...factors: Rep[]): Rep => (factors.length === 0 ? trivial : factors.length === 1 ? factors[0]! : { kind: 'tensor', factors });
/** k copies of r: k·r = r ⊕ … ⊕ r. */
export const times = (k: number, r: Rep): Rep => sum(...Array.from({ length: k }, () => r));
/** T(p,q) = V^⊗p ⊗ (V*)^⊗q; T(0) is the trivial representation. */
export const T = (p: number, q = 0): Rep => tensorRep(...Array.from({ length: p }, () => V), ...Array.from({ length: q }, () => dual(V)));

/** The largest multiplicity or tensor power a representation expression may write (3V, T(k)): larger ones describe spaces no machine holds. */
export const MAX_MULTIPLICITY = 64;

/**
 * An irreducible-or-not building block after distributing ⊗ over ⊕: a tensor product of
 * copies of V (+1) and V* (−1) — the empty product is the trivial representation — and
 * the coordinates of the whole representation it occupies, in its own row-major order.
 */
export interface Atom {
  readonly factors: readonly number[];
  readonly pos: Int32Array;
}

/**
 * The dimension of r (for dim V = d) and the number of its atoms, without building anything:
 * memoised over shared subexpressions (3V, T(k) and nested multiplicities share their parts),
 * so the cost is the size of the expression, not of the space it names (2^64 for T(64) of Z(2)).
 */
export function repMeasure(r: Rep, d: number): { size: number; atoms: number } {
  const memo = new Map<Rep, { size: number; atoms: number }>();
  const go = (x: Rep): { size: number; atoms: number } => {
    let m = memo.get(x);
    if (m) return m;
    switch (x.kind) {
      case 'trivial':
        m = { size: 1, atoms: 1 };
        break;
      case 'V':
        m = { size: d, atoms: 1 };
        break;
      case 'dual':
        m = go(x.of);
        break;
      case 'sum':
        m = x.parts.map(go).reduce((a, b) => ({ size: a.size + b.size, atoms: a.atoms + b.atoms }));
        break;
      case 'tensor':
        m = x.factors.map(go).reduce((a, b) => ({ size: a.size * b.size, atoms: a.atoms * b.atoms }), { size: 1, atoms: 1 });
        break;
    }
    memo.set(x, m);
    return m;
  };
  return go(r);
}

export function repSize(r: Rep, d: number): number {
  return repMeasure(r, d).size;
}

/** The direct-sum decomposition of r into atoms (⊗ distributed over ⊕), with coordinates. */
export function atoms(r: Rep, d: number): Atom[] {
  switch (r.kind) {
    case 'trivial':
      return [{ factors: [], pos: Int32Array.of(0) }];
    case 'V':
      return [{ factors: [1], pos: Int32Array.from({ length: d }, (_, i) => i) }];
    case 'dual':
      return atoms(r.of, d).map((a) => ({ factors: a.factors.map((f) => -f), pos: a.pos }));
    case 'sum': {
      let off = 0;
      return r.parts.flatMap((p) => {
        const as = atoms(p, d).map((a) => ({ factors: a.factors, pos: a.pos.map((x) => x + off) }));
        off += repSize(p, d);
        return as;
      });
    }
    case 'tensor': {
      let acc: Atom[] = [{ factors: [], pos: Int32Array.of(0) }];
      for (const f of r.factors) {
        const fs = atoms(f, d),
          n = repSize(f, d);
        const next: Atom[] = [];
        for (const a of acc)
          for (const b of fs) {
            const pos = new Int32Array(a.pos.length * b.pos.length);
            let k = 0;
            for (const p of a.pos) for (const q of b.pos) pos[k++] = p * n + q;
            next.push({ factors: [...a.factors, ...b.factors], pos });
          }
        acc = next;
      }
      return acc;
    }
  }
}

/** Whether the group's V is orthogonal (ρ(h)⁻ᵀ = ρ(h), Aᵀ = −A), so that V* = V and duals can be dropped. */
export function isOrthogonal(G: Group): boolean {
  if (G.perms && !G.lie.length) return true; // permutation matrices are orthogonal
  const close = (a: Mat, b: Mat): boolean => a.data.every((v, i) => Math.abs(v - b.data[i]!) < 1e-12);
  // Aᵀ = −A read in place: a product group's thousands of Lie generators cost no copies
  const skew = ({ data, rows: d }: Mat): boolean => {
    for (let i = 0; i < d; i++) for (let j = i; j < d; j++) if (Math.abs(data[i * d + j]! + data[j * d + i]!) >= 1e-12) return false;
    return true;
  };
  return G.discrete.every((h) => close(matmul(transpose(h), h), eye(G.d))) && G.lie.every(skew);
}

/** A key naming an atom up to the isomorphisms the solver may use (duals dropped for orthogonal groups). */
export function atomKey(a: Atom, orthogonal: boolean): string {
  if (!a.factors.length) return 'T0';
  return a.factors.map((f) => (orthogonal || f > 0 ? 'V' : 'V*')).join('⊗');
}

/** ρ(h) on an atom for a discrete generator h given on V: ⊗_k (h or h⁻ᵀ). */
export function atomDiscrete(factors: readonly number[], h: Mat): Sparse {
  if (!factors.length) return sparseEye(1);
  const hs = sparseFromDense(h, 1e-15);
  const hd = factors.some((f) => f < 0) ? sparseFromDense(transpose(inverse(h)), 1e-15) : hs;
  return factors.map((f) => (f > 0 ? hs : hd)).reduce((a, b) => sparseKron(a, b));
}

/** dρ(A) on an atom for a Lie-algebra generator A on V: Σ_k I⊗…⊗(A or −Aᵀ)⊗…⊗I. */
export function atomLie(factors: readonly number[], A: Mat, d: number): Sparse {
  if (!factors.length) return { rows: 1, cols: 1, rowPtr: Int32Array.of(0, 0), colIdx: new Int32Array(0), vals: new Float64Array(0) };
  const a = sparseFromDense(A, 1e-15);
  const ad = sparseFromDense({ ...transpose(A), data: transpose(A).data.map((v) => -v) }, 1e-15);
  const I = sparseEye(d);
  const terms = factors.map((_, k) => ({ s: 1, m: factors.map((f, j) => (j === k ? (f > 0 ? a : ad) : I)).reduce((x, y) => sparseKron(x, y)) }));
  return sparseLinComb(terms);
}

/** The action of a permutation σ of V's basis on an atom's basis (k-tuples): (i₁…i_k) ↦ (σi₁…σi_k). */
export function atomPerm(factors: readonly number[], sigma: Int32Array): Int32Array {
  const d = sigma.length,
    k = factors.length;
  const n = d ** k;
  const out = new Int32Array(n);
  for (let x = 0; x < n; x++) {
    let rest = x,
      y = 0,
      mul = 1;
    for (let j = 0; j < k; j++) {
      const i = rest % d;
      rest = Math.floor(rest / d);
      y += sigma[i]! * mul;
      mul *= d;
    }
    out[x] = y;
  }
  return out;
}

/** ρ(g) as a dense matrix on the whole representation, for g given on V. */
export function repMatrix(r: Rep, g: Mat): Mat {
  const d = g.rows,
    n = repSize(r, d);
  const out = mat(n, n);
  let gInvT: Mat | undefined; // only a dual factor needs it (d³ work per element)
  for (const a of atoms(r, d)) {
    const m = a.factors.map((f) => (f > 0 ? g : (gInvT ??= transpose(inverse(g))))).reduce((x, y) => kron(x, y), eye(1));
    const k = a.pos.length;
    for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) out.data[a.pos[i]! * n + a.pos[j]!] = m.data[i * k + j]!;
  }
  return out;
}

/**
 * The terms of a direct sum as (text, multiplicity), adjacent equal texts merged: nested sums
 * are flattened (⊕ is associative), and a run of one shared summand — what `k·R` builds — is
 * rendered once, so that 64(64(64V)) prints in a few characters instead of listing 262144
 * summands. `render` prints a summand; `group` writes a several-term sum that repeats.
 */
function sumTerms(x: Rep, render: (r: Rep) => string, group: (terms: [string, number][]) => string): [string, number][] {
  const out: [string, number][] = [];
  const push = (t: string, k: number): void => {
    const last = out[out.length - 1];
    if (last && last[0] === t) last[1] += k;
    else out.push([t, k]);
  };
  if (x.kind !== 'sum') return [[render(x), 1]];
  for (let i = 0; i < x.parts.length;) {
    let j = i;
    while (j < x.parts.length && x.parts[j] === x.parts[i]) j++;
    const inner = sumTerms(x.parts[i]!, render, group),
      m = j - i;
    if (m === 1) for (const [t, k] of inner) push(t, k);
    else if (inner.length === 1 && inner[0]![1] * m <= MAX_MULTIPLICITY) push(inner[0]![0], inner[0]![1] * m);
    else push(group(inner), m);
    i = j;
  }
  return out;
}

/** Terms as text: a multiplicity k > 1 written by `times`, runs beyond MAX_MULTIPLICITY split into several terms. */
function termTexts(terms: readonly [string, number][], times: (k: number, t: string) => string): string[] {
  return terms.flatMap(([t, k]) => {
    const out: string[] = [];
    for (; k > 0; k -= MAX_MULTIPLICITY) out.push(k > 1 ? times(Math.min(k, MAX_MULTIPLICITY), t) : t);
    return out;
  });
}

/**
 * Prints a representation in the expression grammar. `compact` writes T(k) as `Tk` (and
 * T(p,q) as `Tp_q`) so that the text survives inside model spec strings. The text is about as
 * long as the expression that built r (shared parts print once per use, multiplicities as k·R).
 */
export function repToString(r: Rep, compact = false): string {
  const prec = (x: Rep): number => (x.kind === 'sum' ? 0 : x.kind === 'tensor' ? 1 : 2);
  const tk = (p: number, q: number): string => (compact ? (q ? `T${p}_${q}` : `T${p}`) : q ? `T(${p},${q})` : `T(${p})`);
  const go = (x: Rep): string => {
    switch (x.kind) {
      case 'trivial':
        return tk(0, 0);
      case 'V':
        return 'V';
      case 'dual':
        return `dual(${go(x.of)})`;
      case 'sum':
        return infixSum(sumTerms(x, go, infixSum));
      case 'tensor': {
        const fs = x.factors;
        const nV = fs.filter((f) => f.kind === 'V').length,
          nD = fs.filter((f) => f.kind === 'dual' && f.of.kind === 'V').length;
        const ordered = fs.every((f, i) => (i < nV ? f.kind === 'V' : f.kind === 'dual' && f.of.kind === 'V'));
        if (ordered && nV + nD === fs.length && fs.length > 1) return tk(nV, nD);
        return fs.map((f) => (prec(f) < 2 ? `(${go(f)})` : go(f))).join('*');
      }
    }
  };
  // runs of equal summands as k·R, bracketed when R is itself a sum or product
  const infixSum = (terms: [string, number][]): string => termTexts(terms, (k, t) => `${k}${/[+*]|^\d/.test(t) ? `(${t})` : t}`).join('+');
  const infix = go(r);
  if (!compact || !/\)[+*]/.test(infix)) return infix;
  // Spec strings cannot tokenise ')' followed by an operator: write sums and products as calls
  // (a multiplicity as k(…), which needs no operator).
  const callSum = (terms: [string, number][]): string => `sum(${termTexts(terms, (k, t) => `${k}(${t})`).join(',')})`;
  const call = (x: Rep): string => {
    if (x.kind === 'sum') return callSum(sumTerms(x, call, callSum));
    if (x.kind === 'tensor') {
      const t = go(x);
      return /[()+*]/.test(t) ? `tensor(${x.factors.map(call).join(',')})` : t;
    }
    if (x.kind === 'dual') return `dual(${call(x.of)})`;
    return go(x);
  };
  return call(r);
}
