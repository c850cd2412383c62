/**
 * `paralens/topos` — topos theory: Heyting logics, the subobject classifier, gluing of local
 * predictions, presheaves, sieves and Ω, the site and stacks of a network, and the ensemble
 * experiments (docs/topos.md, docs/topos-network.md).
 */
export * from '../topos/index.js';
export * from '../experiments/topos/index.js';
