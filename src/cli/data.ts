import type { Dataset } from '../data/dataset.js';
import { builtInData } from '../data/registry.js';

/**
 * Resolves a data set name for the CLI. Built-in sets come from src/data; Node-only
 * loaders (Fashion-MNIST, CSV files) are added by `registerNodeData`.
 */
const extra = new Map<string, (opts: { seed: number; dataDir?: string }) => Promise<Dataset>>();

export function registerCliData(name: string, load: (opts: { seed: number; dataDir?: string }) => Promise<Dataset>): void {
  extra.set(name, load);
}

export async function loadData(name: string, opts: { seed: number; dataDir?: string }): Promise<Dataset> {
  const l = extra.get(name);
  return l ? l(opts) : builtInData(name, opts.seed);
}
