export * from './permute.js';
export * from './sets.js';
export * from './kmeans.js';
