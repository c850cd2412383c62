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
export { directProduct, properLorentz } from './group/group.js';
export { rubiksCube, rubikGenerators, rubikFacelets, RUBIK_FACES } from './group/rubik.js';
export { permutationGroupOrder } from './group/schreier-sims.js';
export { solveEnd } from './solve/solver.js';
export type { GeneratorPair, EndSolve } from './solve/solver.js';
export { Irreps, parseIrreps, irrepDim, irrepName, irrepGroupOf } from './irreps/irrep.js';
export type { Irrep, IrrepGroup, MulIrrep, IrrepsLike } from './irreps/irrep.js';
export { sphericalHarmonics, shDim } from './irreps/spherical-harmonics.js';
export type { ShNormalization } from './irreps/spherical-harmonics.js';
export { wignerD, so3IrrepLie, irrepMatrix, irrepLie, irrepsMatrix } from './irreps/wigner.js';
export { clebschGordan, couples } from './irreps/clebsch-gordan.js';
export { decompose, decomposeSymmetric, decompositionString } from './irreps/decompose.js';
export type { Decomposition, DecompositionTerm } from './irreps/decompose.js';
export { parseIndexSymmetry } from './irreps/index-symmetry.js';
export type { IndexSymmetry } from './irreps/index-symmetry.js';
export { gaussLegendre, sphereQuadrature } from './irreps/quadrature.js';
export * as geometry from './geometry/index.js';
export { parseGeometry, geometryText, deriveAttention, attentionDimension, attentionElements } from './geometry/index.js';
export type { Geometry, DerivedAttention } from './geometry/index.js';
