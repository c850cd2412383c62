import type { Group } from '../group/group.js';
import { parseGroup } from '../group/parse-group.js';
import { parseRep } from '../group/parse-rep.js';
import { repMeasure, repToString } from '../group/rep.js';
import type { Rep } from '../group/rep.js';
import { equivariantBasis, estimateBasisBytes, MAX_BLOCKS } from './solver.js';
import { formatCount, TooLargeError } from '../../errors.js';
import type { CostEstimate } from '../../errors.js';
import type { EquivariantBasis, SolveOptions } from './solver.js';

/** A group given as a Group or as an expression like 'S(4)'. */
export type GroupLike = Group | string;
/** A representation given as a Rep or as an expression like 'V+T(2)'. */
export type RepLike = Rep | string;

export const toGroup = (g: GroupLike): Group => (typeof g === 'string' ? parseGroup(g) : g);
export const toRep = (r: RepLike): Rep => (typeof r === 'string' ? parseRep(r) : r);

const cache = new Map<string, EquivariantBasis>();

/** equivariantBasis, memoised by (group, in, out): layers built from the same spec share one solve. */
export function cachedBasis(G: Group, repIn: Rep, repOut: Rep, opts?: SolveOptions): EquivariantBasis {
  const key = `${G.name}|${repToString(repIn)}|${repToString(repOut)}`;
  let b = cache.get(key);
  if (!b) {
    b = equivariantBasis(G, repIn, repOut, opts);
    if (cache.size > 256) cache.clear();
    cache.set(key, b);
  }
  return b;
}

/** The most features a representation may have as a layer's input or output (per sample). */
const MAX_LAYER_FEATURES = 2 ** 22;

/**
 * Refuses a representation too large to be a layer's features (its size and atoms counted
 * without building it): a layer holds every sample's n values, and lists its atoms.
 */
export function checkLayerRep(G: Group, r: Rep, layer: string, features = repMeasure(r, G.d).size): void {
  const { atoms } = repMeasure(r, G.d);
  if (!(features <= MAX_LAYER_FEATURES) || !(atoms <= MAX_BLOCKS)) {
    throw new TooLargeError(
      `${layer}(${G.name},${repToString(r)}): ${formatCount(features)} features in ${formatCount(atoms)} atoms; a layer takes at most ${formatCount(MAX_LAYER_FEATURES)} features and ${formatCount(MAX_BLOCKS)} atoms`,
      { elements: features },
    );
  }
}

/** What the basis of Hom_G(in, out) costs to derive, estimated before anything is solved (cached bases cost nothing). */
export function basisCost(G: Group, repIn: Rep, repOut: Rep): CostEstimate {
  if (cache.has(`${G.name}|${repToString(repIn)}|${repToString(repOut)}`)) return {};
  return { bytes: estimateBasisBytes(G, repIn, repOut) };
}
