export * from './pool.js';
export * from './map.js';
export * from './deepsets.js';
export * from './permute.js';
export * from './sets.js';
export * from './kmeans.js';
import './layers.js';
export * from './set-experiment.js';
export * from './fisher-iris.js';
