export * from './metrics.js';
export * from './trainer.js';
export * from './device-trainer.js';
export * from './train.js';
export * from './diagnose.js';
export { stepper } from './decode.js';
export type { Stepper } from './decode.js';
export * from './checkpoint.js';
