import type { Para } from '../para/para.js';
import type { LayerDef } from './grammar.js';
import { maskedMap, mapSet } from '../nn/colimit/map.js';
import { pool } from '../nn/colimit/pool.js';

const defs: LayerDef[] = [];

const optInt = (n: unknown): number | undefined => (typeof n === 'number' ? n : undefined);

for (const op of ['sum', 'mean', 'max'] as const) {
  defs.push({
    name: `${op}_pool`,
    args: [],
    doc: `${op}_pool: ${op} over the set axis, [n,d] → [d] (a colimit-induced, permutation-invariant map)`,
    make: () => pool(op, false),
  });
  defs.push({
    name: `masked_${op}_pool`,
    args: [],
    doc: `masked_${op}_pool: ${op} over the present elements of a masked set [n,d+1] (last column 1 = present) → [d]; empty set → 0`,
    make: () => pool(op, true),
  });
}
defs.push({
  name: 'map',
  args: ['morphism', 'int?'],
  doc: 'map(f,n): f on every element of a set, [n,…A] → [n,…B]',
  make: (f, n) => mapSet(f as Para, optInt(n)),
});
defs.push({
  name: 'masked_map',
  args: ['morphism', 'int?'],
  doc: 'masked_map(f,n): f on the features of every slot of a masked set [n,a+1] → [n,b+1], mask carried over',
  make: (f, n) => maskedMap(f as Para, optInt(n)),
});

/** The layers of this module that spec strings can name (listed in src/catalogue/catalogue.ts). */
export const colimitLayers: readonly LayerDef[] = defs;
