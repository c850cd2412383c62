import type { Para } from '../para/para.js';
import type { LayerDef } from './grammar.js';
import { reparamFromSpec } from '../para/param-maps.js';
import { add, copy, discard, id, residual } from '../para/structure.js';

const defs: LayerDef[] = [];

const optSize = (n: unknown): number | undefined => (typeof n === 'number' ? n : undefined);

defs.push({ name: 'id', args: ['int?'], doc: 'id(n): the identity on n features', make: (n) => id(optSize(n)) });
defs.push({ name: 'copy', args: ['int?'], doc: 'copy(n): Δ, n features to two copies side by side', make: (n) => copy(optSize(n)) });
defs.push({ name: 'discard', args: ['int?'], doc: 'discard(n): n features to none', make: (n) => discard(optSize(n)) });
defs.push({ name: 'add', args: ['int?'], doc: 'add(n): 2n features to n, the sum of the two halves', make: (n) => add(optSize(n)) });
defs.push({
  name: 'reparam',
  args: ['morphism', 'string'],
  doc: 'reparam(f,map): f with its parameters read through map: tie((i,j,…),…) shares tensors, cubic(c) is θ = φ + cφ³, linear((row),…) is θ = Mφ',
  make: (f, map) => reparamFromSpec(f as Para, map as string),
});
defs.push({ name: 'residual', args: ['morphism'], doc: 'residual(f): x ↦ x + f(x) = copy >> (f @ id) >> add', make: (f) => residual(f as Para) });

/** The layers of this module that spec strings can name (listed in src/catalogue/catalogue.ts). */
export const paraLayers: readonly LayerDef[] = defs;
