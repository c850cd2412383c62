import { colimitLayers } from './colimit.js';
import { equivariantLayers } from './equivariant.js';
import { markovLayers } from './markov.js';
import { naturalLayers } from './natural.js';
import { nnLayers } from './nn.js';
import { paraLayers } from './structure.js';
import { opsLayers } from './graph.js';
import { parseSpecWith } from './grammar.js';
import type { LayerDef, LayerLookup } from './grammar.js';

/**
 * Every layer that spec strings can name, in one list: the structure of Para itself, the
 * layers of src/nn, the morphisms each perspective adds, and the operator lenses of src/ops
 * (by their ONNX names) with the operator graph. A new layer family is added here; nothing
 * registers itself by being imported.
 */
export const BUILT_IN_LAYERS: readonly LayerDef[] = [
  ...paraLayers,
  ...nnLayers,
  ...markovLayers,
  ...colimitLayers,
  ...naturalLayers,
  ...equivariantLayers,
  // a graph's boxes that are layers are read by the whole grammar
  ...opsLayers((text) => parseSpecWith(catalogue, text)),
];

const layers = new Map<string, LayerDef>(BUILT_IN_LAYERS.map((d) => [d.name, d]));

/** The catalogue parseSpec reads: the built-in layers and those added by defineLayer. */
export const catalogue: LayerLookup = {
  get: (name) => layers.get(name),
  names: () => [...layers.keys()].sort(),
};

/** Makes a user-defined layer nameable in spec strings (call it once, before parsing). */
export function defineLayer(def: LayerDef): void {
  layers.set(def.name, def);
}

export function layerNames(): string[] {
  return [...catalogue.names()];
}

export function layerDefs(): LayerDef[] {
  return layerNames().map((n) => layers.get(n)!);
}
