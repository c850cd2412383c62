export * from './functor.js';
export * from './naturality.js';
export * from './distill-loss.js';
