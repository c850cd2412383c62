export * from './layers/pool.js';
export * from './layers/map.js';
export * from './deepsets.js';
export * from './permute.js';
export * from './sets.js';
export * from './kmeans.js';
export * from './set-experiment.js';
export * from './fisher-iris.js';
