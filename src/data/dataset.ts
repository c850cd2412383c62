import { DataError } from '../errors.js';
import { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';

/**
 * A supervised data set: inputs x [N, …] and targets y [N, k] (one-hot rows for
 * classification, values for regression), with class indices and names when it is a
 * classification task.
 */
export interface Dataset {
  readonly name: string;
  readonly x: Tensor;
  readonly y: Tensor;
  readonly labels?: Int32Array;
  readonly classes?: readonly string[];
  readonly featureNames?: readonly string[];
}

export interface Split {
  readonly train: Dataset;
  readonly test: Dataset;
}

/** One-hot rows [N, k] from class indices. */
export function oneHot(labels: Int32Array, k: number): Tensor {
  const y = Tensor.zeros([labels.length, k]);
  labels.forEach((c, i) => (y.data[i * k + c] = 1));
  return y;
}

/** The rows `idx` of a data set (copied). */
export function subset(ds: Dataset, idx: ArrayLike<number>, name = ds.name): Dataset {
  const take = (t: Tensor): Tensor => {
    const per = t.size / t.batch;
    const out = Tensor.zeros([idx.length, ...t.shape.slice(1)], t.dtype);
    for (let i = 0; i < idx.length; i++) out.data.set(t.data.subarray(idx[i]! * per, (idx[i]! + 1) * per), i * per);
    return out;
  };
  return {
    ...ds,
    name,
    x: take(ds.x),
    y: take(ds.y),
    labels: ds.labels && Int32Array.from(Array.from(idx, (i) => ds.labels![i]!)),
  };
}

/**
 * A seeded split that keeps each class's proportion (stratified) when the set has labels:
 * `testFraction` of every class goes to test.
 */
export function stratifiedSplit(ds: Dataset, testFraction: number, seed: number | Rng = 0): Split {
  if (!(testFraction > 0 && testFraction < 1)) throw new DataError(`test fraction must be in (0,1), got ${testFraction}`);
  const rng = typeof seed === 'number' ? new Rng(seed) : seed;
  const N = ds.x.batch;
  const groups = new Map<number, number[]>();
  for (let i = 0; i < N; i++) {
    const c = ds.labels ? ds.labels[i]! : 0;
    if (!groups.has(c)) groups.set(c, []);
    groups.get(c)!.push(i);
  }
  const train: number[] = [],
    test: number[] = [];
  for (const c of [...groups.keys()].sort((a, b) => a - b)) {
    const idx = rng.shuffle(groups.get(c)!) as number[];
    const nTest = Math.round(idx.length * testFraction);
    // loops, not push(...idx): one argument per row overflows the stack on a large class
    idx.forEach((r, k) => (k < nTest ? test : train).push(r));
  }
  return { train: subset(ds, train, `${ds.name}/train`), test: subset(ds, test, `${ds.name}/test`) };
}

/** Per-feature mean and standard deviation of x (for standardising). */
export function featureStats(x: Tensor): { mean: Float64Array; std: Float64Array } {
  const N = x.batch,
    d = x.size / N;
  const mean = new Float64Array(d),
    std = new Float64Array(d);
  for (let i = 0; i < N; i++) for (let j = 0; j < d; j++) mean[j]! += x.data[i * d + j]! / N;
  for (let i = 0; i < N; i++) for (let j = 0; j < d; j++) std[j]! += (x.data[i * d + j]! - mean[j]!) ** 2 / N;
  for (let j = 0; j < d; j++) std[j] = Math.sqrt(std[j]!) || 1;
  return { mean, std };
}

/** x standardised with given statistics (fit them on training data only). */
export function standardize(ds: Dataset, stats: { mean: Float64Array; std: Float64Array }): Dataset {
  const x = ds.x.clone();
  const d = x.size / x.batch;
  for (let i = 0; i < x.size; i++) x.data[i] = (x.data[i]! - stats.mean[i % d]!) / stats.std[i % d]!;
  return { ...ds, x };
}

/** Throws a DataError naming the first non-finite value's row and column. */
export function checkFinite(ds: Dataset): void {
  for (const [what, t] of [
    ['input', ds.x],
    ['target', ds.y],
  ] as const) {
    const per = t.size / t.batch;
    for (let i = 0; i < t.size; i++) {
      if (!Number.isFinite(t.data[i]!)) {
        throw new DataError(`${ds.name}: non-finite ${what} ${t.data[i]} at row ${Math.floor(i / per) + 1}, column ${(i % per) + 1}`);
      }
    }
  }
}
