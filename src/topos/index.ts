export * from './topos1.js';
export * from './topos2.js';
