// Finite presheaf topoi: presheaves on a finite category, sieves and Ω, subpresheaves, Grothendieck topologies and the sheaf condition.
export * from './presheaf.js';
export * from './sieve.js';
export * from './subpresheaf.js';
export * from './topology.js';
