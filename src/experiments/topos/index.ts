export * from './ensemble.js';
export * from './ensemble-study.js';
