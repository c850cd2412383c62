import type { Para } from '../para/para.js';
import { parseSpecWith } from './grammar.js';
import type { SpecOptions } from './grammar.js';
import { catalogue, defineLayer } from './catalogue.js';
import { tracedLayerDef } from './graph.js';
import type { TracedLayerDef } from './graph.js';
import { TracedLayer } from '../ops/trace.js';
import type { Sym } from '../ops/trace.js';

export { BUILT_IN_LAYERS, defineLayer, layerNames, layerDefs } from './catalogue.js';
export { parseGraph as parseOpGraph } from './graph.js';
export type { TracedLayerDef } from './graph.js';
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

/**
 * A layer written as a forward over the operator lenses, with its pullback by composition:
 * `layer('silu', (x) => ops.mul(x, ops.sigmoid(x)))`. It is defined in the catalogue (so spec
 * strings can name it: `dense(4,8) >> silu`), takes any shape until composed, and on a fixed
 * domain is the traced operator graph — `gradcheck` it like any layer. With `args` its numeric
 * arguments are passed to the forward: `layer('swish', (x, b) => …, { args: ['number'] })(1.5)`.
 */
export function layer(name: string, forward: (x: Sym) => Sym): Para;
export function layer(
  name: string,
  forward: (x: Sym, ...args: number[]) => Sym,
  opts: TracedLayerDef & { args: readonly ('int' | 'number')[] },
): (...args: number[]) => Para;
export function layer(name: string, forward: (x: Sym, ...args: number[]) => Sym, opts: TracedLayerDef = {}): Para | ((...args: number[]) => Para) {
  defineLayer(tracedLayerDef(name, forward, opts));
  return opts.args ? (...args: number[]) => new TracedLayer(name, args, forward) : new TracedLayer(name, [], forward);
}
