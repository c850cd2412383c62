// Topos II (issue 9): the topos and stacks of a DNN (Belfiore & Bennequin, arXiv 2106.14587).
export * from './topos-error.js';
export * from './category.js';
export * from './presheaf.js';
export * from './sieve.js';
export * from './subpresheaf.js';
export * from './topology.js';
export * from './network-graph.js';
export * from './site.js';
export * from './network-presheaf.js';
export * from './network-weights.js';
export * from './stack.js';
export * from './stack-equivariance.js';
export * from './semantic-info.js';
export * from './info-cohomology.js';
export * from './network-information.js';
export * from './site-report.js';
