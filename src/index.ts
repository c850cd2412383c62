/**
 * paralens: categorical deep learning. Every layer is a morphism of Para — a parametric
 * lens (P, F, F*) — networks are composites, backprop is the reverse composite of pullbacks.
 */
export * from './errors.js';
export { VERSION } from './version.js';
export * from './tensor/index.js';
export * from './random/index.js';
export * from './linalg/index.js';
export * from './category/index.js';
export * from './para/index.js';
export { ops, OpGraph, GraphBuilder, TracedLayer, trace, Sym, OPERATORS, PENDING_OPERATORS, operator, opLayer, BATCH } from './ops/index.js';
export type { Op, OpDef, OpLens, OpCtx, Attrs, AttrValue, Dim, SymShape, OpValue, GraphNode } from './ops/index.js';
export * from './catalogue/index.js';
export * from './nn/index.js';
export * from './optim/index.js';
export * from './markov/index.js';
export * from './data/index.js';
export * from './train/index.js';
export * from './colimit/index.js';
export * from './topos/index.js';
export * from './natural/index.js';
export * from './symmetry/index.js';
export * from './io/index.js';
export * from './draw/index.js';
export * from './ends/index.js';
export * from './experiments/index.js';
