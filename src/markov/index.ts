export * from './kernel.js';
export * from './expectation.js';
export * from './laws.js';
export * from './kl.js';
export * from './predict.js';
export * from './calibration.js';
export * from './ood.js';
