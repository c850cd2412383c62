export * from './logic/index.js';
export * from './gluing/index.js';
export * from './presheaf/index.js';
export * from './network/index.js';
