/** Declared geometries for attention and the kernels the solver derives on them (seed 001). */
export { parseGeometry, geometryText, geometrySize, geometryGroup, isGeometryText, GEOMETRY_FORMS, GEOMETRY_LIMITS } from './geometry.js';
export type { Geometry } from './geometry.js';
export { finiteAction } from './action.js';
export type { FiniteAction } from './action.js';
export { finiteKernels, describeKernels, kernelMatrix, finiteKernelBytes } from './kernels.js';
export type { FiniteKernels } from './kernels.js';
export { deriveRotary, rotaryMatrix, rotaryScore, MAX_ROTARY_WIDTH } from './rotary.js';
export type { DerivedRotary } from './rotary.js';
export { derivePoints, naturalIrrep, pathText, radialCentres, RADIAL_BASIS } from './points.js';
export type { DerivedPoints, ValuePath } from './points.js';
export { deriveAttention, deriveAttentionCost, attentionDimension, attentionElements, attentionGroup, valueMapLines } from './derive.js';
export type { DerivedAttention, DeriveAttentionOptions } from './derive.js';
