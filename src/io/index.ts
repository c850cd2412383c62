/**
 * Files and interchange (browser-safe: bytes in, bytes out). Model files are safetensors
 * with the spec in `__metadata__`; ONNX export builds a ModelProto and ONNX import reads one
 * back as a Para composite. Reading and writing files on disk, and the PyTorch export (whose
 * fixed Python is read from .py files), are in `src/io/node.ts` (Node only, not exported here).
 */
export * from './errors.js';
export * from './safetensors.js';
export * from './model-file.js';
export * from './onnx.js';
export type { OnnxRule, OnnxRuleInput } from './onnx-rules.js';
export type { Attr, NamedParam, Value as OnnxValue } from './onnx-graph.js';
export { OnnxGraph } from './onnx-graph.js';
export { importOnnx } from './onnx-import.js';
export type { OnnxImport } from './onnx-import.js';
