export * from './dataset.js';
export * from './generated.js';
export * from './csv.js';
export * from './registry.js';
export * from './idx.js';
