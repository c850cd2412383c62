import type { Dataset } from '../data/dataset.js';
import type { ImageLayout } from '../data/idx.js';
import { loadFashionMnist } from '../data/node.js';
import { builtInData } from '../data/registry.js';
import { ShapeError } from '../errors.js';
import type { Para } from '../para/para.js';

/** What a CLI data loader is told: the seed, the --data-dir flag, and the model it will feed (to choose a layout). */
export interface CliDataOptions {
  seed: number;
  dataDir?: string;
  model?: Para;
}

/**
 * Resolves a data set name for the CLI. Built-in sets come from src/data; Node-only
 * loaders (Fashion-MNIST, …) are registered below, by `registerCliData`.
 */
const extra = new Map<string, (opts: CliDataOptions) => Promise<Dataset>>();

function registerCliData(name: string, load: (opts: CliDataOptions) => Promise<Dataset>): void {
  extra.set(name, load);
}

export async function loadData(name: string, opts: CliDataOptions): Promise<Dataset> {
  const l = extra.get(name);
  return l ? l(opts) : builtInData(name, opts.seed);
}

/**
 * The image layout a model takes: 'image' ([1,H,W], channel-first) when its domain has rank 3
 * or it cannot take a flat vector of `flat` features (a model starting with conv2d), else 'flat'.
 */
export function layoutFor(model: Para | undefined, flat: number): ImageLayout {
  if (!model) return 'flat';
  if (model.dom) return model.dom.length === 3 ? 'image' : 'flat';
  try {
    model.at([flat]);
    return 'flat';
  } catch (e) {
    if (e instanceof ShapeError) return 'image';
    throw e;
  }
}

/** Fashion-MNIST's 60 000 training rows, with the 10 000 test rows as its `test` field (the train command evaluates on it). */
registerCliData('fashion-mnist', async ({ dataDir, model }) => {
  const { train, test } = loadFashionMnist({ dataDir, layout: layoutFor(model, 784) });
  return { ...train, test } as Dataset;
});
