import type { Para } from './para.js';
import { defineLayer } from './spec.js';
import { add, copy, discard, id, residual } from './structure.js';

const optSize = (n: unknown): number | undefined => (typeof n === 'number' ? n : undefined);

defineLayer({ name: 'id', args: ['int?'], doc: 'id(n): the identity on n features', make: (n) => id(optSize(n)) });
defineLayer({ name: 'copy', args: ['int?'], doc: 'copy(n): Δ, n features to two copies side by side', make: (n) => copy(optSize(n)) });
defineLayer({ name: 'discard', args: ['int?'], doc: 'discard(n): n features to none', make: (n) => discard(optSize(n)) });
defineLayer({ name: 'add', args: ['int?'], doc: 'add(n): 2n features to n, the sum of the two halves', make: (n) => add(optSize(n)) });
defineLayer({ name: 'residual', args: ['morphism'], doc: 'residual(f): x ↦ x + f(x) = copy >> (f @ id) >> add', make: (f) => residual(f as Para) });
