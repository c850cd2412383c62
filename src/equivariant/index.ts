/**
 * Ends over symmetry groups (seed 001): groups, representations, the end solver that
 * derives Hom_G(ρ_in, ρ_out), and the equivariant layers built on it. Generic names
 * (matrix helpers, rep builders) are exported inside namespaces to keep the top level clean.
 */
export { ExpressionError, SolveTooLargeError, formatBytes } from './group/errors.js';
export type { Group } from './group/group.js';
export * as groups from './group/group.js';
export { symmetric, cyclic, dihedral, translations1d, translations2d, permutationGroup, lorentz, lieGroup, soGenerators } from './group/group.js';
export { parseGroup, GROUP_FORMS } from './group/parse-group.js';
export type { Rep, Atom } from './group/rep.js';
export * as reps from './group/rep.js';
export { repSize, repMatrix, repToString, atoms, isOrthogonal } from './group/rep.js';
export { parseRep } from './group/parse-rep.js';
export { pairOrbits } from './solve/orbits.js';
export type { OrbitBasis } from './solve/orbits.js';
export { equivariantBasis, equivarianceError, basisMatrix, measureError, measureErrors, estimateBlockBytes } from './solve/solver.js';
export type { EquivariantBasis, BlockSolve, SolveOptions } from './solve/solver.js';
export { toGroup, toRep, cachedBasis } from './solve/resolve.js';
export type { GroupLike, RepLike } from './solve/resolve.js';
export { equivariantLinear, expandBasis, projectOntoBasis } from './layers/linear.js';
export { gated, bilinear, bilinearRep, emlp, gateCount, withGates } from './layers/gated.js';
export { normGated } from './layers/norm.js';
export { pointMixing } from './layers/point-mixing.js';
export { deepsetsLayer, mixersOf } from './layers/deepsets.js';
export { messagePassing, messagePassingMixers, parseGraph, adjacency } from './layers/message-passing.js';
export type { Graph } from './layers/message-passing.js';
export { conv1dPeriodic, conv2dPeriodic, derivedOffsets } from './layers/conv.js';
export { ropeAttention, applyRope, ropeFrequencies } from './layers/rope.js';
export type { RopeOptions } from './layers/rope.js';
export { benchmarkExperiment, modelEquivarianceError } from './tasks/benchmark.js';
export type { BenchmarkTask, BenchmarkRow, BenchmarkOptions } from './tasks/benchmark.js';
export { inertiaData, inertiaEMLP, inertiaMLP, inertiaTask, inertiaExperiment, INERTIA } from './tasks/inertia.js';
export { o5Data, o5EMLP, o5MLP, o5Task } from './tasks/o5-invariant.js';
export { reparameterisationDemo } from './tasks/fibration.js';
export type { ReparamDemo } from './tasks/fibration.js';
