export * from './para.js';
export { Morphism, Seq, Par, primitive, seq, par, concatShapes, splitRows, joinRows } from './category.js';
export type { PrimitiveDef } from './category.js';
export * from './structure.js';
export * from './gradcheck.js';
export * from './spec.js';
import './layers.js';
