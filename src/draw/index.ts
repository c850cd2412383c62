export * from './svg.js';
export * from './layout.js';
export * from './rules.js';
export * from './diagram.js';
export * from './plot.js';
export * from './grid.js';
export type { ColourMap } from './colour.js';
export type { RuleTable } from '../rule-table.js';
