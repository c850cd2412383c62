// The topos and stacks of a DNN (Belfiore & Bennequin, arXiv 2106.14587): the network's site with forks, its presheaves, stacks and semantic information.
export * from './graph.js';
export * from './site.js';
export * from './activities.js';
export * from './weights.js';
export * from './stack.js';
export * from './stack-equivariance.js';
export * from './semantic.js';
export * from './cohomology.js';
export * from './information.js';
export * from './site-report.js';
export * from './run.js';
