/**
 * `paralens/natural` — natural transformations: functors on feature spaces, naturality
 * defects, the adapter layer, distillation and its experiments (docs/natural.md).
 */
export * from '../natural/index.js';
export * from '../nn/natural/adapter.js';
export * from '../experiments/natural/index.js';
