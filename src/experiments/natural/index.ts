export * from './fit.js';
export * from './distill.js';
export * from './bit-flip-naturality.js';
export * from './hint-naturality.js';
