// Logics on truth values: Heyting algebras (Gödel, open sets), residuated lattices, Kleene–Dienes, their laws.
export * from './heyting.js';
export * from './opens.js';
export * from './residuated.js';
export * from './kleene-dienes.js';
export * from './laws.js';
export * from './by-name.js';
