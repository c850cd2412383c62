// Small dense and sparse float64 linear algebra: matrices, nullspaces, Cholesky solves, affine fits, rank statistics.
export * as eqmatrix from './matrix.js';
export type { Mat } from './matrix.js';
export * as eqsparse from './sparse.js';
export type { Sparse } from './sparse.js';
export { nullspace, nullspaceOfGram, orthonormalizeRows, identificationNullspace } from './nullspace.js';
export type { NullspaceOptions } from './nullspace.js';
export { iterativeNullspace } from './iterative.js';
export type { LinearOperator, IterativeOptions } from './iterative.js';
export { dampedSolve } from './cholesky.js';
export * from './affine.js';
export * from './rank.js';
