import { SpecError } from '../errors.js';
import { ropeFrequencies, rotaryTable } from '../symmetry/group/rotary.js';
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
 */
export type Position =
  | { readonly kind: 'rope' }
  | { readonly kind: 'relative'; readonly maxDistance: number }
  | { readonly kind: 'absolute'; readonly tmax: number }
  | { readonly kind: 'none' };

/** The clipping distance of `relative` when none is given. */
const DEFAULT_MAX_DISTANCE = 32;

const POSITION = /^(rope|none|relative|absolute)(?:\((\d+)\))?$/;

/** A position mechanism from its spec text: rope | relative | relative(K) | absolute(Tmax) | none. */
export function parsePosition(text: string, where: string): Position {
  const m = POSITION.exec(text.replace(/\s+/g, ''));
  const fail = (): never => {
    throw new SpecError(`${where}: position must be rope, relative, relative(K), absolute(Tmax) or none, got '${text}'`);
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
  return p.kind;
}

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
