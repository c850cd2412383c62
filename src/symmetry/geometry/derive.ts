import type { CostEstimate } from '../../errors.js';
import { finiteAction } from './action.js';
import type { FiniteAction } from './action.js';
import { geometryGroup, geometrySize, geometryText, parseGeometry } from './geometry.js';
import type { Geometry } from './geometry.js';
import { describeKernels, finiteKernelBytes, finiteKernels } from './kernels.js';
import type { FiniteKernels } from './kernels.js';
import { derivePoints, pathText, RADIAL_BASIS } from './points.js';
import type { DerivedPoints } from './points.js';
import { deriveRotary } from './rotary.js';
import type { DerivedRotary } from './rotary.js';

/**
 * What the solver derives for attention on a declared geometry: the kernel space on X×X (the
 * scores' position part) and, where the features carry a representation, the equivariant maps
 * on them — the end ∫_g 𝒞(g·(X×X), g·End(Y)) of seed 001.
 */
export type DerivedAttention =
  | {
      readonly kind: 'finite';
      readonly geometry: Exclude<Geometry, { kind: 'points' }>;
      readonly action: FiniteAction;
      readonly kernels: FiniteKernels;
      /** seq(T,rotary): the representation of the shifts on queries and keys, and its invariant forms. */
      readonly rotary?: DerivedRotary;
      readonly seconds: number;
    }
  | { readonly kind: 'points'; readonly geometry: Extract<Geometry, { kind: 'points' }>; readonly points: DerivedPoints; readonly seconds: number };

export interface DeriveAttentionOptions {
  /** The head width dh for seq(T,rotary) (the layer's d/heads; default 8 for the command line). */
  readonly headWidth?: number;
  /** Refuse derivations estimated above this many bytes (default 1 GiB, as every solve). */
  readonly maxBytes?: number;
}

/** What deriving a geometry's kernels costs, from its size alone (a SolveTooLargeError above maxBytes). */
export function deriveAttentionCost(g: Geometry, maxBytes?: number): CostEstimate {
  if (g.kind === 'points') return { bytes: 0 };
  return { bytes: finiteKernelBytes(geometrySize(g), `derive --attention ${geometryText(g)}`, maxBytes) };
}

const cache = new Map<string, DerivedAttention>();

/** Derives the attention kernels of a geometry (memoised: every layer of a model on one geometry shares the derivation). */
export function deriveAttention(geometry: Geometry | string, opts: DeriveAttentionOptions = {}): DerivedAttention {
  const g = typeof geometry === 'string' ? parseGeometry(geometry) : geometry;
  const key = `${geometryText(g)}|${opts.headWidth ?? ''}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const t0 = performance.now();
  let d: DerivedAttention;
  if (g.kind === 'points') {
    d = { kind: 'points', geometry: g, points: derivePoints(g.n, g.lmax), seconds: 0 };
  } else {
    const action = finiteAction(g);
    const kernels = finiteKernels(action, `derive --attention ${geometryText(g)}`, opts.maxBytes);
    const rotary = g.kind === 'seq' && g.rotary ? deriveRotary(opts.headWidth ?? 8) : undefined;
    d = { kind: 'finite', geometry: g, action, kernels, ...(rotary ? { rotary } : {}), seconds: 0 };
  }
  d = { ...d, seconds: (performance.now() - t0) / 1000 };
  if (cache.size > 64) cache.clear();
  cache.set(key, d);
  return d;
}

/** dim of the derived kernel space on X×X: the orbits of visible pairs, or the radial basis of the one invariant of a pair of points. */
export function attentionDimension(d: DerivedAttention): number {
  return d.kind === 'finite' ? d.kernels.dimension : RADIAL_BASIS.count * d.points.invariantForms.length;
}

/** One line per basis element of the kernel space. */
export function attentionElements(d: DerivedAttention): string[] {
  if (d.kind === 'finite') return describeKernels(d.action, d.kernels);
  const { centres, gamma } = d.points.radial;
  return Array.from(centres, (mu) => `exp(−${gamma}·(|x_k − x_q| − ${Number(mu.toFixed(4))})²), a radial function of the invariant |x_k − x_q|²`);
}

/** The group of the derivation, in words. */
export const attentionGroup = (d: DerivedAttention): string => geometryGroup(d.geometry);

/** The value maps of a derivation, one line each (points: the Clebsch–Gordan paths; finite: the trivial representation). */
export function valueMapLines(d: DerivedAttention): string[] {
  if (d.kind === 'points')
    return d.points.valueMaps.map((p) => `${pathText(p)}: c(u)·C·Y_${p.edge.l}(r̂), c a function of the pair's invariants u (φ_k(|r|), …)`);
  return ['the features carry the trivial representation: every linear map of the values commutes with G (Hom_G = End(R^dh))'];
}
