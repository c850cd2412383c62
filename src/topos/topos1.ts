// Topos I (seed 000, the topos section): subobject classifier, Heyting logic, sheaf gluing.
export * from './heyting.js';
export * from './heyting-opens.js';
export * from './logic-residuated.js';
export * from './logic-kleene-dienes.js';
export * from './logic-laws.js';
export * from './logic-registry.js';
export * from './sheaf.js';
export * from './sheaf-consistent.js';
export * from './sheaf-exercise.js';
export * from './subobject.js';
export * from './boundary.js';
export * from './ensemble.js';
export * from './ensemble-metrics.js';
export * from './ensemble-study.js';
