// The kernels of the wasm backend (src/tensor/wasm-backend.ts). Memory is imported; the
// module allocates nothing: the host lays out arguments and per-thread scratch.
export { gemm, gemmChunks, gemmShared, gemmWorkBytes, packedBFloats } from './gemm';
export { unary, unaryBackward, addRowVector, sumRows, axpy, allFinite, adam } from './elementwise';
export { im2col, col2im, maxPool, scatterAdd, swapAxes } from './window';
export { mguGate, mguCell, mguCellBackward, mguGateBackward } from './mgu';
export { gemmBatched, gemmBatchedShare, attentionSoftmax, attentionSoftmaxBackward } from './attention';
export { layerNorm, layerNormBackward } from './norm';
export { lstmCell, lstmCellBackward, gruCell, gruCellBackward } from './recurrent';
export { lstmSequence, lstmSequenceBackward, gruSequence, gruSequenceBackward, recurrentPackedFloats } from './recurrent-sequence';
