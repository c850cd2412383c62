import { stratifiedSplit } from '../data/dataset.js';
import type { Dataset, Split } from '../data/dataset.js';
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

/** Splits off a stratified 20 % test set for data sets with more than a handful of rows. */
function maybeSplit(data: Dataset, seed: number, testFraction = 0.2): Split | undefined {
  return data.x.batch >= 20 ? stratifiedSplit(data, testFraction, seed) : undefined;
}

/** The rows a `paralens train` run trains and tests on: the whole set, its seeded 80/20 split, or Fashion-MNIST's own test set. */
export interface TrainingData {
  readonly data: Dataset;
  readonly train: Dataset;
  readonly test?: Dataset;
  readonly split?: Split;
}

/**
 * The training and test rows of a run, the one definition that `train` uses and that
 * `export --format pytorch` repeats (same name and seed, so the same rows).
 */
export async function trainingData(name: string, opts: CliDataOptions): Promise<TrainingData> {
  const data = await loadData(name, opts);
  const split = data.name === 'fashion-mnist' ? undefined : maybeSplit(data, opts.seed);
  return { data, train: split?.train ?? data, test: split?.test ?? (data as Dataset & { test?: Dataset }).test, split };
}
