import { byName } from '../errors.js';
import { parseCsv } from './csv.js';
import type { Dataset } from './dataset.js';
import { blobs, circles, moons, spirals, xor } from './generated.js';
import { IRIS_CSV } from './iris-csv.js';

/** Fisher's Iris (shipped with paralens; UCI, CC BY 4.0). */
export function iris(): Dataset {
  return parseCsv(IRIS_CSV, { name: 'iris', label: 'class' });
}

type Loader = (seed: number) => Dataset;

const builtIn: Record<string, Loader> = {
  xor: () => xor(),
  moons: (s) => moons(200, 0.1, s),
  spirals: (s) => spirals(400, 0.05, s),
  circles: (s) => circles(200, 0.05, s),
  blobs: (s) => blobs(150, 3, 0.5, s),
  iris: () => iris(),
};

/** Data sets available in every environment (fashion-mnist needs Node: see src/data/node.ts). */
export function builtInDataNames(): string[] {
  return Object.keys(builtIn);
}

/** A built-in data set by name, generated with `seed` where it is random. */
export function builtInData(name: string, seed = 0): Dataset {
  return byName('data set', builtIn, name, [...builtInDataNames(), 'fashion-mnist'])(seed);
}
