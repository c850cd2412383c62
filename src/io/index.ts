/**
 * Files and interchange (browser-safe: bytes in, bytes out). Model files are safetensors
 * with the spec in `__metadata__`; ONNX export builds a ModelProto and ONNX import reads one
 * back as a Para composite of operator lenses and named layers. Reading and writing files on
 * disk, and the PyTorch export (whose fixed Python is read from .py files), are in
 * `src/io/node.ts` (Node only, not exported here).
 */
export * from './errors.js';
export * from './safetensors.js';
export * from './model-file.js';
export * from './onnx/export.js';
export { defineOnnxRule, onnxKinds, ONNX_RULES } from './onnx/export-rules.js';
export type { OnnxRule, OnnxRuleInput } from './onnx/rule.js';
export type { Attr, NamedParam, Value as OnnxValue } from './onnx/graph-proto.js';
export { OnnxGraph } from './onnx/graph-proto.js';
export { importOnnx } from './onnx/import.js';
export { ONNX_ROUND_TRIP_EXEMPT } from './onnx/exempt.js';
export type { ImportOptions, OnnxImport } from './onnx/import.js';
export { ONNX_LIMITS, scanOnnx } from './onnx/scan.js';
export type { ByteSource, ScanSummary } from './onnx/scan.js';
