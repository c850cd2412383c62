/**
 * `paralens/colimit` — colimits and invariance: pooling over sets, map(f), DeepSets, k-means
 * centroids, set data and the set experiments (docs/colimit.md).
 */
export * from '../colimit/index.js';
export * from '../nn/colimit/pool.js';
export * from '../nn/colimit/map.js';
export * from '../nn/colimit/deepsets.js';
export * from '../experiments/colimit/index.js';
