/**
 * Everything src/category uses from the modules it builds on — the finite categories and
 * sheaf gluing of `src/topos`, the groups, representations and nullspace solver of
 * `src/equivariant` — in one place, so that a reorganisation there is one edit here.
 */
export { FiniteCategory, categoryFromPoset, parsePoset } from '../topos/index.js';
export type { Arrow } from '../topos/index.js';
export { agreesWithin, checkTolerance, glue, normaliseSections, sectionDistance } from '../topos/index.js';
export type { Section } from '../topos/index.js';
export { nullspace, equivariantBasis, parseGroup, parseRep, repMatrix, repSize, repToString, GROUP_FORMS, SolveTooLargeError, formatBytes } from '../equivariant/index.js';
export type { Group, Rep, Mat, Sparse } from '../equivariant/index.js';
export { eye, kron, mat, matmul, permMatrix, transpose } from '../equivariant/matrix.js';
export { fromTriples } from '../equivariant/sparse.js';
