/**
 * Ends and coends over finite categories (seed 001, "Universality"): the end ∫_c F(c, c), the
 * space of global invariants (equivariant maps are the end over a group), and the coend
 * ∫^c F(c, c), the minimal gluing (conjugacy classes, coinvariants, overlap-add of patches).
 */
export { homFunctor, linearize, functionMatrix } from './hom.js';
export { setEnd, vectEnd, wedgeComponent, diagonalOffsets } from './end.js';
export type { SetEnd, VectEnd, Wedge } from './end.js';
export { setCoend, vectCoend, projectToCoend } from './coend.js';
export type { SetCoend, VectCoend, DiagonalElement } from './coend.js';
export { groupCategory, cycleNotation } from './group-category.js';
export type { GroupCategory } from './group-category.js';
export { representation, homRepFunctor, tensorRepFunctor } from './rep-functors.js';
export type { RepMatrices } from './rep-functors.js';
export type { MatEntries, SparseActions } from './entries.js';
export { conv2dSame } from './conv.js';
export { coverOf, coverCategory, pointFunctor, classPoints } from './cover.js';
export type { Cover, CoverCategory } from './cover.js';
export { patchGrid, glueConvolution } from './gluing.js';
export type { Rect, LocalLayer, GluingResult } from './gluing.js';
export { sectionsCoend } from './sections-coend.js';
export type { SectionsCoend } from './sections-coend.js';
export { endOverGroup, homCoend, conjugacyClasses, coinvariants } from './report.js';
export type { EndOverGroup, HomCoend, Coinvariants } from './report.js';
