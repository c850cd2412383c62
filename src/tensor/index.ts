export * from './tensor.js';
export * from './backend.js';
export { jsBackend, applyUnary, unaryDerivative } from './js-backend.js';
