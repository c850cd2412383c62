/** The perspectives' experiments: they train networks, so they sit above train/. */
export * from './markov/index.js';
export * from './colimit/index.js';
export * from './natural/index.js';
export * from './topos/index.js';
export * from './equivariant/index.js';
export * from './recurrent/index.js';
