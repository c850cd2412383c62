// Finite categories (by objects and arrows, from a poset or a presenting graph) and functors into Set and Vect.
export * from './errors.js';
export * from './finite.js';
export * from './presentation.js';
export { UnionFind } from './union-find.js';
export { setDifunctor, checkSetDifunctor } from './set-functor.js';
export type { SetDifunctor, SetDifunctorSpec } from './set-functor.js';
export { vectDifunctor, checkVectDifunctor } from './vect-functor.js';
export type { VectDifunctor, VectDifunctorSpec, VectCheckOptions } from './vect-functor.js';
