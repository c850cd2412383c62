import { ruleTable } from '../rule-table.js';
import type { RuleFamily } from '../rule-table.js';
import { colimitLayers } from './colimit.js';
import { equivariantLayers } from './equivariant.js';
import { markovLayers } from './markov.js';
import { naturalLayers } from './natural.js';
import { nnLayers } from './nn.js';
import { paraLayers } from './structure.js';
import { recurrentLayers } from './recurrent.js';
import { opsLayers } from './graph.js';
import { parseSpecWith } from './grammar.js';
import type { LayerDef, LayerLookup } from './grammar.js';

/**
 * Every layer that spec strings can name, in one list: the structure of Para itself, the
 * layers of src/nn, the morphisms each perspective adds, and the operator lenses of src/ops
 * (by their ONNX names) with the operator graph. A new layer family is added here; nothing
 * registers itself by being imported.
 */
const FAMILIES: readonly (readonly LayerDef[])[] = [
  paraLayers,
  nnLayers,
  recurrentLayers,
  markovLayers,
  colimitLayers,
  naturalLayers,
  equivariantLayers,
  // the operators of src/ops by their ONNX names, and graph(…), whose boxes that are layers are read by the whole grammar
  opsLayers((text) => parseSpecWith(catalogue, text)),
];

export const BUILT_IN_LAYERS: readonly LayerDef[] = FAMILIES.flat();

/** A family's layers keyed by their spec names (the catalogue is a rule table like every other concern: src/rule-table.ts). */
const byName = (defs: readonly LayerDef[]): RuleFamily<LayerDef> => defs.map((d) => [d.name, d] as const);

/** The catalogue concern's rule table: spec name → its LayerDef; defineLayer adds to it. */
export const CATALOGUE = ruleTable<LayerDef>('catalogue', FAMILIES.map(byName));

/** The catalogue parseSpec reads: the built-in layers and those added by defineLayer. */
export const catalogue: LayerLookup = {
  get: (name) => CATALOGUE.get(name),
  names: () => CATALOGUE.kinds(),
};

/** Makes a user-defined layer nameable in spec strings (call it once, before parsing). */
export function defineLayer(def: LayerDef): void {
  CATALOGUE.define(def.name, def);
}

export function layerNames(): string[] {
  return [...catalogue.names()];
}

export function layerDefs(): LayerDef[] {
  return layerNames().map((n) => CATALOGUE.get(n)!);
}
