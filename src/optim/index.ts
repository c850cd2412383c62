export * from './optimizer.js';
export * from './schedule.js';
export * from './natural-gradient.js';
export * from './kfac.js';
export * from './by-name.js';
export * from './clip.js';
