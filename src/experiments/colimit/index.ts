export * from './set-experiment.js';
export * from './fisher-iris.js';
