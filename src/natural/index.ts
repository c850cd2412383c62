export * from './functor.js';
export * from './layers/adapter.js';
export * from './naturality.js';
export * from './distill-loss.js';
export * from './fit.js';
export * from './distill.js';
export * from './bit-flip-naturality.js';
export * from './hint-naturality.js';
