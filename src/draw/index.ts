export * from './svg.js';
export * from './layout.js';
export * from './rules.js';
export * from './diagram.js';
export * from './plot.js';
export * from './grid.js';
