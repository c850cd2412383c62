export * from './para.js';
export { Morphism, Seq, Par, primitive, seq, par, concatShapes, splitRows, joinRows, fusable } from './category.js';
export type { PrimitiveDef, FusableOp } from './category.js';
export * from './structure.js';
export { tie, linearReparam, cubicReparam } from './param-maps.js';
export * from './gradcheck.js';
export { parseSpecWith, printSpec } from './spec.js';
export type { ArgKind, ArgValue, LayerDef, LayerLookup } from './spec.js';
