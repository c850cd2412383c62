import type { Para } from '../para/para.js';
import { parseSpecWith } from './grammar.js';
import type { SpecOptions } from './grammar.js';
import { catalogue } from './catalogue.js';

export { BUILT_IN_LAYERS, defineLayer, layerNames, layerDefs } from './catalogue.js';
export { parseSpecWith, printSpec } from './grammar.js';
export type { ArgKind, ArgValue, LayerDef, LayerLookup, SpecOptions } from './grammar.js';

/**
 * Parses a model spec over the catalogue of every layer: layers by name with arguments,
 * `>>` for sequential composition, `@` for the monoidal product (binding tighter than `>>`),
 * parentheses for grouping. `parseSpec('dense(2,4) >> sigmoid >> dense(4,1) >> sigmoid')`;
 * `parseSpec('embedding(vocab,64) >> …', { constants: { vocab: 96 } })` binds a named size.
 */
export function parseSpec(src: string, opts: SpecOptions = {}): Para {
  return parseSpecWith(catalogue, src, opts);
}
