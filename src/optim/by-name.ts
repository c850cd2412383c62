import { byName } from '../errors.js';
import { KFAC } from './kfac.js';
import { NaturalGradient } from './natural-gradient.js';
import { Adam, Momentum, SGD } from './optimizer.js';
import type { Optimizer, OptimizerOptions } from './optimizer.js';

/** Every optimiser by its CLI name. */
const factories: Record<string, (o: OptimizerOptions) => Optimizer> = {
  sgd: (o) => new SGD(o),
  momentum: (o) => new Momentum(o),
  nesterov: (o) => new Momentum(o, true),
  adam: (o) => new Adam(o),
  adamw: (o) => new Adam(o, true),
  natural: (o) => new NaturalGradient(o),
  kfac: (o) => new KFAC(o),
};

export function optimizerNames(): string[] {
  return Object.keys(factories);
}

/** An optimiser by its CLI name; unknown names throw, listing the known ones. */
export function optimizer(name: string, opts: OptimizerOptions): Optimizer {
  return byName('optimizer', factories, name)(opts);
}
