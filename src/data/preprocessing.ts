import { clip, DataError } from '../errors.js';
import { parseJsonWithin } from '../json.js';
import { Tensor } from '../tensor/tensor.js';
import type { Dataset } from './dataset.js';

/**
 * The map from a data file's values to a model's inputs and targets, as a model file keeps it
 * (`__metadata__.preprocessing`, docs/files.md): for a table, one entry per column in the order
 * of the model's inputs — a numeric column standardised, (v − mean)/std, a categorical column
 * one-hot over its categories — and for arrays (NumPy, IDX) a scale factor (1/255 for 8-bit
 * pixels, else 1) and, for arrays that are not 8-bit, every input standardised as well. The
 * target's class names, or for regression its mean and std: the model predicts
 * (y − mean)/std. Means and stds are fitted on the training rows only.
 */
export interface NumericFeature {
  readonly name: string;
  readonly type: 'numeric';
  readonly mean?: number;
  readonly std?: number;
}

export interface CategoricalFeature {
  readonly name: string;
  readonly type: 'categorical';
  readonly categories: readonly string[];
}

export type Feature = NumericFeature | CategoricalFeature;

export interface ClassTarget {
  readonly name?: string;
  readonly task: 'classify';
  readonly classes: readonly string[];
}

export interface RegressionTarget {
  readonly name?: string;
  readonly task: 'regress';
  /** Per model output. */
  readonly mean?: readonly number[];
  readonly std?: readonly number[];
}

export type Target = ClassTarget | RegressionTarget;

export type Preprocessing =
  | { readonly version: 1; readonly input: 'table'; readonly features: readonly Feature[]; readonly target?: Target }
  | {
      readonly version: 1;
      readonly input: 'array';
      readonly scale: number;
      readonly standardize: boolean;
      readonly mean?: readonly number[];
      readonly std?: readonly number[];
      readonly target?: Target;
    };

/** How many model inputs a feature becomes: one, or one per category. */
export function featureWidth(f: Feature): number {
  return f.type === 'numeric' ? 1 : f.categories.length;
}

/** The name of each model input: the column's, or `column=category` for one-hot inputs. */
export function inputNames(features: readonly Feature[]): string[] {
  return features.flatMap((f) => (f.type === 'numeric' ? [f.name] : f.categories.map((c) => `${f.name}=${c}`)));
}

/** Mean and population std (as scikit-learn's StandardScaler; a constant column gets std 1) of column j of an [N, d] array. */
function columnStats(data: ArrayLike<number>, N: number, d: number, j: number): { mean: number; std: number } {
  let mean = 0;
  for (let i = 0; i < N; i++) mean += data[i * d + j]!;
  mean /= N;
  let v = 0;
  for (let i = 0; i < N; i++) v += (data[i * d + j]! - mean) ** 2;
  return { mean, std: Math.sqrt(v / N) || 1 };
}

/** The preprocessing with its means and stds fitted on `train` (raw inputs and targets, as the loader gave them). */
export function fitStatistics(p: Preprocessing, train: Dataset): Preprocessing {
  const N = train.x.batch;
  if (N === 0) throw new DataError(`${train.name}: no training rows to fit the standardisation on`);
  let target = p.target;
  if (target?.task === 'regress') {
    const k = train.y.size / N;
    const stats = Array.from({ length: k }, (_, j) => columnStats(train.y.data, N, k, j));
    target = { ...target, mean: stats.map((s) => s.mean), std: stats.map((s) => s.std) };
  }
  const d = train.x.size / N;
  if (p.input === 'array') {
    if (!p.standardize) return { ...p, ...(target ? { target } : {}) };
    const scaled = modelInputs({ ...p, standardize: false }, train.x).data;
    const stats = Array.from({ length: d }, (_, j) => columnStats(scaled, N, d, j));
    return { ...p, mean: stats.map((s) => s.mean), std: stats.map((s) => s.std), ...(target ? { target } : {}) };
  }
  let at = 0;
  const features = p.features.map((f): Feature => {
    const j = at;
    at += featureWidth(f);
    // a column whose statistics are set already keeps them (token ids: mean 0, std 1, read as they are)
    return f.type === 'numeric' && (f.mean === undefined || f.std === undefined) ? { ...f, ...columnStats(train.x.data, N, d, j) } : f;
  });
  if (at !== d) throw new DataError(`${train.name}: the preprocessing describes ${at} inputs but the data has ${d}`);
  return { ...p, features, ...(target ? { target } : {}) };
}

/** The model inputs for raw inputs x [N, …]: numeric columns standardised (one-hot ones kept), or x·scale; into `out` (which may be x). */
export function modelInputs(p: Preprocessing, x: Tensor, out: Tensor = Tensor.zeros(x.shape, x.dtype)): Tensor {
  const N = x.batch,
    d = x.size / Math.max(1, N);
  if (p.input === 'array') {
    if (!p.standardize) {
      for (let i = 0; i < x.size; i++) out.data[i] = x.data[i]! * p.scale;
      return out;
    }
    if (!p.mean || !p.std) throw new DataError('the preprocessing standardises the inputs but has no fitted mean and std');
    if (p.mean.length !== d || p.std.length !== d) throw new DataError(`the preprocessing standardises ${p.mean.length} inputs but the data has ${d}`);
    for (let i = 0; i < x.size; i++) out.data[i] = (x.data[i]! * p.scale - p.mean[i % d]!) / p.std[i % d]!;
    return out;
  }
  const mean = new Float64Array(d),
    scale = new Float64Array(d).fill(1);
  let at = 0;
  for (const f of p.features) {
    if (f.type === 'numeric') {
      if (f.mean === undefined || f.std === undefined) throw new DataError(`preprocessing of '${f.name}' has no fitted mean and std`);
      mean[at] = f.mean;
      scale[at] = 1 / f.std;
    }
    at += featureWidth(f);
  }
  if (at !== d) throw new DataError(`the preprocessing describes ${at} inputs but the data has ${d}`);
  for (let i = 0; i < x.size; i++) out.data[i] = (x.data[i]! - mean[i % d]!) * scale[i % d]!;
  return out;
}

/** A regression target's statistics (mean 0, std 1 for every output when it has none). */
function targetStats(p: Preprocessing, k: number): { mean: readonly number[]; std: readonly number[] } | undefined {
  const t = p.target;
  if (t?.task !== 'regress' || !t.mean || !t.std) return undefined;
  if (t.mean.length !== k || t.std.length !== k) throw new DataError(`the preprocessing's target has ${t.mean.length} outputs but the model gives ${k}`);
  return { mean: t.mean, std: t.std };
}

/**
 * Raw inputs and targets → what the model trains on: modelInputs, and a regression target
 * standardised. `inPlace`: overwrite the data set's own tensors (a loader's fresh copy).
 */
export function applyPreprocessing(p: Preprocessing, ds: Dataset, opts: { inPlace?: boolean } = {}): Dataset {
  const x = modelInputs(p, ds.x, opts.inPlace ? ds.x : undefined);
  const k = ds.y.size / Math.max(1, ds.y.batch);
  const s = ds.y === ds.x ? undefined : targetStats(p, k);
  if (!s) return { ...ds, x, ...(ds.y === ds.x ? { y: x } : {}) };
  const y = opts.inPlace ? ds.y : Tensor.zeros(ds.y.shape, ds.y.dtype);
  for (let i = 0; i < y.size; i++) y.data[i] = (ds.y.data[i]! - s.mean[i % k]!) / s.std[i % k]!;
  return { ...ds, x, y };
}

/** Model outputs [N, k] → the target's units: y·std + mean for a standardised regression target, else unchanged. */
export function targetValues(p: Preprocessing | undefined, y: Tensor): Tensor {
  const k = y.size / Math.max(1, y.batch);
  const s = p && targetStats(p, k);
  if (!s) return y;
  const out = Tensor.zeros(y.shape, y.dtype);
  for (let i = 0; i < y.size; i++) out.data[i] = y.data[i]! * s.std[i % k]! + s.mean[i % k]!;
  return out;
}

/**
 * A preprocessing read back from JSON (a model file's metadata), checked field by field; a
 * DataError names the first field that is not what this format has.
 */
export function parsePreprocessing(json: string): Preprocessing {
  const parsed = parseJsonWithin(json);
  if (!parsed.ok) throw new DataError(`preprocessing is not JSON paralens reads (${clip(parsed.reason, 160)})`);
  const v = parsed.value;
  const bad = (what: string): never => {
    throw new DataError(`preprocessing: ${what}`);
  };
  const o = v as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) bad('expected a JSON object');
  if (o.version !== 1) bad(`version ${clip(JSON.stringify(o.version), 40)} is not 1, the one this paralens reads`);
  const strings = (x: unknown, what: string): string[] =>
    Array.isArray(x) && x.every((s) => typeof s === 'string') ? (x as string[]) : bad(`${what} must be a list of strings`);
  const numbers = (x: unknown, what: string): number[] =>
    Array.isArray(x) && x.every((n) => typeof n === 'number' && Number.isFinite(n)) ? (x as number[]) : bad(`${what} must be a list of finite numbers`);
  const num = (x: unknown, what: string): number => (typeof x === 'number' && Number.isFinite(x) ? x : bad(`${what} must be a finite number`));
  let target: Target | undefined;
  if (o.target !== undefined) {
    const t = o.target as Record<string, unknown>;
    if (typeof t !== 'object' || t === null) bad('target must be an object');
    const name = t.name === undefined ? {} : { name: typeof t.name === 'string' ? t.name : bad('target.name must be a string') };
    if (t.task === 'classify') target = { ...name, task: 'classify', classes: strings(t.classes, 'target.classes') };
    else if (t.task === 'regress') {
      target = {
        ...name,
        task: 'regress',
        ...(t.mean !== undefined ? { mean: numbers(t.mean, 'target.mean') } : {}),
        ...(t.std !== undefined ? { std: numbers(t.std, 'target.std') } : {}),
      };
      if (target.std?.some((s) => !(s > 0))) bad('target.std must be positive');
    } else bad(`target.task must be "classify" or "regress", got ${clip(JSON.stringify(t.task), 40)}`);
  }
  const withTarget = target ? { target } : {};
  if (o.input === 'array') {
    if (typeof o.standardize !== 'boolean') bad('standardize must be true or false');
    const mean = o.mean === undefined ? {} : { mean: numbers(o.mean, 'mean') };
    const std = o.std === undefined ? {} : { std: numbers(o.std, 'std') };
    if (std.std?.some((v) => !(v > 0))) bad('std must be positive');
    return { version: 1, input: 'array', scale: num(o.scale, 'scale'), standardize: o.standardize as boolean, ...mean, ...std, ...withTarget };
  }
  if (o.input !== 'table') bad(`input must be "table" or "array", got ${clip(JSON.stringify(o.input), 40)}`);
  if (!Array.isArray(o.features)) bad('features must be a list');
  const features = (o.features as unknown[]).map((f0, i): Feature => {
    const f = f0 as Record<string, unknown>;
    if (typeof f !== 'object' || f === null || typeof f.name !== 'string') bad(`features[${i}] must be an object with a name`);
    if (f.type === 'categorical') return { name: f.name as string, type: 'categorical', categories: strings(f.categories, `features[${i}].categories`) };
    if (f.type !== 'numeric') bad(`features[${i}].type must be "numeric" or "categorical"`);
    const std = f.std === undefined ? undefined : num(f.std, `features[${i}].std`);
    if (std !== undefined && !(std > 0)) bad(`features[${i}].std must be positive`);
    return {
      name: f.name as string,
      type: 'numeric',
      ...(f.mean !== undefined ? { mean: num(f.mean, `features[${i}].mean`) } : {}),
      ...(std !== undefined ? { std } : {}),
    };
  });
  return { version: 1, input: 'table', features, ...withTarget };
}
