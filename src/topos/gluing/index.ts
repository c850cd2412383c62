// Seed 000's topos section: the sigmoid as a subobject classifier χ and its decision boundary, and the gluing of ensembles' local predictions.
export * from './glue.js';
export * from './consistent.js';
export * from './seed-experts.js';
export * from './subobject.js';
export * from './boundary.js';
export * from './ensemble-metrics.js';
