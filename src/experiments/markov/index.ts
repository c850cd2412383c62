export * from './elbo.js';
export * from './uncertainty.js';
export * from './dropout-xor.js';
export * from './bayes-demo.js';
export * from './uncertainty-report.js';
