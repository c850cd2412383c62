/**
 * paralens: categorical deep learning. Every layer is a morphism of Para — a parametric
 * lens (P, F, F*) — networks are composites, backprop is the reverse composite of pullbacks.
 *
 * This is the core: tensors and the kernels' start, the Para category, spec strings, the
 * layers of src/nn and the losses, optimisers, the built-in data sets and training. Each
 * perspective and each further room is a subpath of its own — paralens/markov,
 * paralens/colimit, paralens/natural, paralens/topos, paralens/equivariant, paralens/ends,
 * paralens/category, paralens/tensor, paralens/linalg, paralens/nn, paralens/optim,
 * paralens/data, paralens/train, paralens/io, paralens/draw, and the Node-only
 * paralens/io/node and paralens/data/node (docs/api.md lists them).
 */
export * from './errors.js';
export { VERSION } from './version.js';

// tensors, and starting the fast kernels
export { Tensor, sizeOf, shapesMatch, shapeString } from './tensor/tensor.js';
export type { DType, Data, Shape } from './tensor/tensor.js';
export { init } from './tensor/init.js';
export type { InitOptions } from './tensor/init.js';
export { Rng } from './random/rng.js';

// the Para category: lenses, seq (>>), par (@), id, copy, discard, primitives, gradcheck
export * from './para/index.js';

// the operator lenses (src/ops): one primitive per tensor operator, with ONNX semantics; a layer written from them gets its pullback by composition
export { ops, OpGraph, GraphBuilder, TracedLayer, trace, Sym, OPERATORS, PENDING_OPERATORS, operator, opLayer, BATCH } from './ops/index.js';
export type { Op, OpDef, OpLens, OpCtx, Attrs, AttrValue, Dim, SymShape, OpValue, GraphNode } from './ops/index.js';
export type { AttrKind, AttrSpec } from './ops/op.js';
export type { BatchDim } from './ops/dim.js';

// spec strings and the catalogue of layer names
export * from './catalogue/index.js';

// the layers of src/nn (each perspective's own layers are in its subpath) and the losses
export { elementwise, gelu, relu, sigmoid, softplus, tanh } from './nn/activation.js';
export { leakyRelu } from './nn/leaky-relu.js';
export { softmax } from './nn/softmax.js';
export { dense } from './nn/dense.js';
export { conv1d } from './nn/conv1d.js';
export { conv2d } from './nn/conv2d.js';
export { maxpool2d } from './nn/maxpool2d.js';
export { avgpool2d } from './nn/avgpool2d.js';
export { flatten } from './nn/flatten.js';
export { globalavgpool } from './nn/globalavgpool.js';
export { embedding } from './nn/embedding.js';
export { layernorm } from './nn/layernorm.js';
export { rmsnorm } from './nn/rmsnorm.js';
export { attention } from './nn/attention.js';
export type { Mask } from './nn/attention.js';
export { transformer } from './nn/transformer.js';
export { tied } from './nn/tied.js';
export * from './nn/loss.js';

// optimisers as lenses on parameters, learning-rate schedules
export * from './optim/optimizer.js';
export * from './optim/schedule.js';
export * from './optim/by-name.js';

// data sets: the built-in ones, splits, one-hot targets
export * from './data/dataset.js';
export * from './data/generated.js';
export * from './data/registry.js';

// training: the loop, the trainer, metrics
export * from './train/train.js';
export * from './train/trainer.js';
export * from './train/metrics.js';
