import { SpecError } from '../errors.js';
import { ropeFrequencies, rotaryTable } from '../symmetry/group/rotary.js';
import { deriveAttention } from '../symmetry/geometry/derive.js';
import { geometryText, isGeometryText, parseGeometry } from '../symmetry/geometry/geometry.js';
import type { Geometry } from '../symmetry/geometry/geometry.js';
import type { FiniteKernels } from '../symmetry/geometry/kernels.js';
import { backend } from '../tensor/registry.js';
import type { Data } from '../tensor/tensor.js';

/**
 * How attention scores see position, each the answer of one end of seed 001 (or none):
 *   rope         the SO(2) end: q and k rotated by ρ(m) ∈ SO(2)^{d/2}, so ⟨ρ(m)q, ρ(n)k⟩ depends on n − m only
 *   relative(K)  the translation end: K(q, k) = κ(k − q), a learned bias per head and distance,
 *                distances beyond K sharing the bias of K (so it extends to any length)
 *   absolute(T)  no symmetry: a learned table of T position vectors added to the input of q and k
 *                (the non-equivariant baseline; it cannot go beyond T)
 *   none         no position at all: with mask none the S(n) end, permutation-equivariant
 *   GEOMETRY     derived by the solver from a declared geometry (seq(T), seq(T,causal), cyclic(T),
 *                grid(H,W), grid(H,W,D4), set(n), and seq(T,rotary)): a learned coefficient per head
 *                and basis element of the invariant kernels on X×X — one per orbit of G on the
 *                visible pairs — added to the scores; with rotary, q and k rotated by the derived ρ
 */
export type Position =
  | { readonly kind: 'rope' }
  | { readonly kind: 'relative'; readonly maxDistance: number }
  | { readonly kind: 'absolute'; readonly tmax: number }
  | { readonly kind: 'none' }
  | { readonly kind: 'derived'; readonly geometry: FiniteGeometry; readonly kernels: FiniteKernels };

/** The geometries whose kernels are finite (every one but points(n)). */
export type FiniteGeometry = Exclude<Geometry, { kind: 'points' }>;

/** The clipping distance of `relative` when none is given. */
const DEFAULT_MAX_DISTANCE = 32;

const POSITION = /^(rope|none|relative|absolute)(?:\((\d+)\))?$/;

/** A position mechanism from its spec text: rope | relative | relative(K) | absolute(Tmax) | none | a finite geometry. */
export function parsePosition(text: string, where: string): Position {
  if (isGeometryText(text)) {
    const g = parseGeometry(text);
    if (g.kind === 'points') throw new SpecError(`${where}: points(n) attention takes irreps features, e.g. attention(16x0e+4x1o,4,${text})`);
    const d = deriveAttention(g);
    if (d.kind !== 'finite') throw new SpecError(`${where}: ${text} has no finite kernels`);
    return { kind: 'derived', geometry: g, kernels: d.kernels };
  }
  const m = POSITION.exec(text.replace(/\s+/g, ''));
  const fail = (): never => {
    throw new SpecError(
      `${where}: position must be rope, relative, relative(K), absolute(Tmax), none or a geometry (seq(T), cyclic(T), grid(H,W), set(n), …), got '${text}'`,
    );
  };
  if (!m) return fail();
  const n = m[2] === undefined ? undefined : Number(m[2]);
  if (n !== undefined && !(n >= 1)) return fail();
  switch (m[1]) {
    case 'rope':
    case 'none':
      if (n !== undefined) fail();
      return { kind: m[1] };
    case 'relative':
      return { kind: 'relative', maxDistance: n ?? DEFAULT_MAX_DISTANCE };
    default:
      if (n === undefined) throw new SpecError(`${where}: absolute needs its table length, e.g. absolute(64)`);
      return { kind: 'absolute', tmax: n };
  }
}

/** The spec text of a position mechanism (parsePosition's inverse). */
export function positionText(p: Position): string {
  if (p.kind === 'relative') return p.maxDistance === DEFAULT_MAX_DISTANCE ? 'relative' : `relative(${p.maxDistance})`;
  if (p.kind === 'absolute') return `absolute(${p.tmax})`;
  if (p.kind === 'derived') return geometryText(p.geometry);
  return p.kind;
}

/**
 * The bias [H, Tq, Tk] of derived kernels: bias[h,i,j] = κ[h, orbit(i + qOffset, j)] — the
 * coefficient of head h on the basis element (orbit indicator) that holds the pair. Hidden pairs
 * (label −1) get 0; the causal mask of the softmax drops them.
 */
export function derivedBias(kappa: Data, H: number, Tq: number, Tk: number, qOffset: number, k: FiniteKernels, causal: boolean, out: Data): void {
  const N = k.points,
    nb = k.dimension,
    label = k.label;
  for (let h = 0; h < H; h++)
    for (let i = 0; i < Tq; i++) {
      const o = (h * Tq + i) * Tk,
        row = (i + qOffset) * N,
        seen = causal ? Math.max(0, Math.min(Tk, i + qOffset + 1)) : Tk,
        kh = h * nb;
      for (let j = 0; j < seen; j++) {
        const b = label[row + j]!;
        out[o + j] = b < 0 ? 0 : kappa[kh + b]!;
      }
      if (seen < Tk) out.fill(0, o + seen, o + Tk);
    }
}

/** The pullback of derivedBias: dκ[h, orbit(i,j)] += g[h,i,j]·factor over the visible pairs. */
export function derivedBiasBackward(g: Data, H: number, Tq: number, Tk: number, k: FiniteKernels, causal: boolean, factor: number, dKappa: Data): void {
  const N = k.points,
    nb = k.dimension,
    label = k.label;
  for (let h = 0; h < H; h++)
    for (let i = 0; i < Tq; i++) {
      const o = (h * Tq + i) * Tk,
        row = i * N,
        seen = causal ? Math.min(Tk, i + 1) : Tk,
        kh = h * nb;
      for (let j = 0; j < seen; j++) {
        const b = label[row + j]!;
        if (b >= 0) dKappa[kh + b]! += g[o + j]! * factor;
      }
    }
}

/** Whether attention with this position is causal: a declared geometry says so itself (seq(T,causal)), the named mechanisms by their mask argument. */
export const attentionCausal = (p: Position, mask: unknown): boolean =>
  p.kind === 'derived' ? p.geometry.kind === 'seq' && p.geometry.causal : mask !== 'none';

/** Whether a position mechanism rotates queries and keys (rope, and the derived rotary representation). */
export const rotates = (p: Position): boolean => p.kind === 'rope' || (p.kind === 'derived' && p.geometry.kind === 'seq' && p.geometry.rotary);

/** Buckets of the relative bias per head: distances 0…K looking back (causal), or −K…K. */
export function relativeBuckets(K: number, causal: boolean): number {
  return causal ? K + 1 : 2 * K + 1;
}

/**
 * The bucket of query i (at position i + qOffset) and key j: min(q − k, K) looking back when
 * causal (keys ahead are masked anyway: bucket 0), else clamp(k − q, −K, K) + K.
 */
function bucket(i: number, j: number, qOffset: number, K: number, causal: boolean): number {
  const back = i + qOffset - j;
  return causal ? Math.max(0, Math.min(back, K)) : Math.max(-K, Math.min(-back, K)) + K;
}

/** The bias [H, Tq, Tk] that κ ([H, buckets]) puts on the scores: bias[h,i,j] = κ[h, bucket(i,j)]. */
export function relativeBias(kappa: Data, H: number, Tq: number, Tk: number, qOffset: number, K: number, causal: boolean, out: Data): void {
  const nb = relativeBuckets(K, causal);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < Tq; i++) {
      const o = (h * Tq + i) * Tk;
      for (let j = 0; j < Tk; j++) out[o + j] = kappa[h * nb + bucket(i, j, qOffset, K, causal)]!;
    }
  }
}

/** The pullback of relativeBias: dκ[h, bucket(i,j)] += g[h,i,j]·factor. */
export function relativeBiasBackward(g: Data, H: number, Tq: number, Tk: number, K: number, causal: boolean, factor: number, dKappa: Data): void {
  const nb = relativeBuckets(K, causal);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < Tq; i++) {
      const o = (h * Tq + i) * Tk;
      const seen = causal ? Math.min(Tk, i + 1) : Tk;
      for (let j = 0; j < seen; j++) dKappa[h * nb + bucket(i, j, 0, K, causal)]! += g[o + j]! * factor;
    }
  }
}

/**
 * Rotates the per-head queries or keys of `count` sequences ([count, T, d] rows, `heads`
 * groups of d/heads features) by ρ(position), positions offset … offset+T−1; `inverse`
 * applies ρᵀ (the pullback of the rotation). The backend's kernel (rotatePairs), so that
 * queries and keys on a device are rotated there.
 */
export function ropeRotate(x: Data, count: number, T: number, d: number, heads: number, offset: number, inverse = false): void {
  const table = rotaryTable(T, ropeFrequencies(d / heads), offset);
  backend().rotatePairs(x, count, d, table, heads, inverse);
}
