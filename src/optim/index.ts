export * from './optimizer.js';
export * from './schedule.js';
