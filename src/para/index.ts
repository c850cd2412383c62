export * from './para.js';
export { Morphism, Seq, Par, primitive, seq, par, concatShapes, splitRows, joinRows, fusable } from './category.js';
export type { PrimitiveDef, FusableOp } from './category.js';
export * from './structure.js';
export * from './gradcheck.js';
export * from './spec.js';
import './layers.js';
