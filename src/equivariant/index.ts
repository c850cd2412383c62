/**
 * Ends over symmetry groups (seed 001): groups, representations, the end solver that
 * derives Hom_G(ρ_in, ρ_out), and the equivariant layers built on it. Generic names
 * (matrix helpers, rep builders) are exported inside namespaces to keep the top level clean.
 */
export { ExpressionError, SolveTooLargeError, formatBytes } from './errors.js';
export * as eqmatrix from './matrix.js';
export type { Mat } from './matrix.js';
export * as eqsparse from './sparse.js';
export type { Sparse } from './sparse.js';
export type { Group } from './group.js';
export * as groups from './group.js';
export { symmetric, cyclic, dihedral, translations1d, translations2d, permutationGroup, lorentz, lieGroup, soGenerators } from './group.js';
export { parseGroup, GROUP_FORMS } from './parse-group.js';
export type { Rep, Atom } from './rep.js';
export * as reps from './rep.js';
export { repSize, repMatrix, repToString, atoms, isOrthogonal } from './rep.js';
export { parseRep } from './parse-rep.js';
export { pairOrbits } from './orbits.js';
export type { OrbitBasis } from './orbits.js';
export { nullspace, nullspaceOfGram, orthonormalizeRows, identificationNullspace } from './nullspace.js';
export type { NullspaceOptions } from './nullspace.js';
export { iterativeNullspace } from './iterative.js';
export type { LinearOperator, IterativeOptions } from './iterative.js';
export { equivariantBasis, equivarianceError, basisMatrix, measureError, measureErrors, estimateBlockBytes } from './solver.js';
export type { EquivariantBasis, BlockSolve, SolveOptions } from './solver.js';
export { toGroup, toRep, cachedBasis } from './resolve.js';
export type { GroupLike, RepLike } from './resolve.js';
export { equivariantLinear, expandBasis, projectOntoBasis } from './linear.js';
export { gated, bilinear, bilinearRep, emlp, gateCount, withGates } from './gated.js';
export { normGated } from './norm.js';
export { pointMixing } from './point-mixing.js';
export { deepsetsLayer, mixersOf } from './deepsets.js';
export { messagePassing, messagePassingMixers, parseGraph, adjacency } from './message-passing.js';
export type { Graph } from './message-passing.js';
export { conv1dPeriodic, conv2dPeriodic, derivedOffsets } from './conv.js';
export { ropeAttention, applyRope, ropeFrequencies } from './rope.js';
export type { RopeOptions } from './rope.js';
import './layers.js';
export { benchmarkExperiment, modelEquivarianceError } from './benchmark.js';
export type { BenchmarkTask, BenchmarkRow, BenchmarkOptions } from './benchmark.js';
export { inertiaData, inertiaEMLP, inertiaMLP, inertiaTask, inertiaExperiment, INERTIA } from './inertia.js';
export { o5Data, o5EMLP, o5MLP, o5Task } from './o5.js';
export { reparameterisationDemo, linearReparam, cubicReparam } from './fibration.js';
export type { ReparamDemo } from './fibration.js';
