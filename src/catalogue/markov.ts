import type { LayerDef } from './grammar.js';
import { bayesDense } from '../nn/markov/bayes-dense.js';
import { dropout } from '../nn/markov/dropout.js';

const defs: LayerDef[] = [];

defs.push({
  name: 'dropout',
  args: ['number'],
  doc: 'dropout(p): zeroes each unit with probability p ∈ [0,1) in training, scales the rest by 1/(1−p); identity in evaluation',
  make: (p) => dropout(p as number),
});
defs.push({
  name: 'bayes_dense',
  args: ['int', 'int', 'number?'],
  doc: 'bayes_dense(in,out[,sigma0]): dense layer with Gaussian weights N(μ, softplus(ρ)²), sampled by reparameterisation in training; sigma0 > 0 the initial σ (default 0.05)',
  make: (i, o, s) => bayesDense(i as number, o as number, s as number | undefined),
});

/** The layers of this module that spec strings can name (listed in src/catalogue/catalogue.ts). */
export const markovLayers: readonly LayerDef[] = defs;
