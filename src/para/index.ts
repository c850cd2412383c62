export * from './para.js';
export { Morphism, Seq, Par, primitive, seq, par, concatShapes, splitRows, joinRows } from './composite.js';
export type { PrimitiveDef } from './composite.js';
export * from './structure.js';
export { tie, linearReparam, cubicReparam } from './param-maps.js';
export * from './gradcheck.js';
