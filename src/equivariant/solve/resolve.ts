import type { Group } from '../group/group.js';
import { parseGroup } from '../group/parse-group.js';
import { parseRep } from '../group/parse-rep.js';
import { repToString } from '../group/rep.js';
import type { Rep } from '../group/rep.js';
import { equivariantBasis } from './solver.js';
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
