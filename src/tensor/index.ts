export * from './tensor.js';
export * from './backend.js';
export * from './registry.js';
export { jsBackend, applyUnary, unaryDerivative } from './js-backend.js';
export { createWasmBackend, loadWasmBackend, initFastBackend } from './wasm-backend.js';
export type { WasmBackend, WasmBackendOptions } from './wasm-backend.js';
export { relaxedSimdSupported, sharedMemorySupported } from './wasm/instance.js';
export * as ops from './ops.js';
