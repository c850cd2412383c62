export * from './init.js';
export * from './dense.js';
export * from './activation.js';
export * from './leaky-relu.js';
export * from './softmax.js';
export * from './loss.js';
import './layers.js';
