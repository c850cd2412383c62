/**
 * `paralens/markov` — Markov categories: stochastic morphisms and their laws, dropout and
 * bayes_dense as stochastic lenses, Monte Carlo prediction, calibration, and the uncertainty
 * experiments (docs/markov.md).
 */
export * from '../markov/index.js';
export * from '../nn/markov/dropout.js';
export * from '../nn/markov/bayes-dense.js';
export * from '../experiments/markov/index.js';
