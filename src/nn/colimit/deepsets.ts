import { seq } from '../../para/composite.js';
import type { Para } from '../../para/para.js';
import { maskedMap, mapSet } from './map.js';
import { pool } from './pool.js';
import type { Reduction } from './pool.js';

/**
 * DeepSets (Zaheer et al. 2017, Theorem 2: f(X) = ρ(Σ_{x∈X} φ(x))): φ on every element,
 * a pooling colimit, ρ after it — nothing but `map(φ) >> pool >> ρ` in Para, so its
 * pullback is the composite of the three pullbacks and needs no code of its own.
 * With `masked`, inputs are masked sets [n, d+1] (see pool.ts) and sets of different
 * sizes share a batch.
 */
export function deepSets(phi: Para, rho: Para, opts: { pool?: Reduction; masked?: boolean; n?: number } = {}): Para {
  const masked = opts.masked ?? false;
  const lift = masked ? maskedMap(phi, opts.n) : mapSet(phi, opts.n);
  return seq(lift, pool(opts.pool ?? 'sum', masked), rho);
}
