/** The equivariant layers: morphisms of Para whose kernels the end solver derives (src/symmetry). */
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
export { tensorProduct, irrepsLinear } from './tensor-product.js';
export { TensorProductPlan } from './tp-kernel.js';
export { irrepsGate, GatePlan } from './irreps-gate.js';
export { irrepsNorm } from './irreps-norm.js';
export { shEmbedding, radialBasis } from './sh-embedding.js';
export { e3Conv } from './e3-conv.js';
export type { Aggregation } from './e3-conv.js';
export { displace } from './displace.js';
