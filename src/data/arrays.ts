import { DataError, TooLargeError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import { oneHot } from './dataset.js';
import type { Dataset } from './dataset.js';
import type { NdArray } from './npy.js';
import type { Preprocessing, Target } from './preprocessing.js';
import { classesOf, requireTwoClasses, taskOfNumbers } from './task.js';
import type { Task } from './task.js';

/** Arrays a Python user already has — features x [N, …] and a target y — as a data set (NumPy files, IDX images). */

/** The most values one sample (a row of x, or of y) may have: a 1024×1024 image. */
export const MAX_SAMPLE_VALUES = 2 ** 20;

/**
 * A DataError naming the first NaN or ±Infinity of an array as the file holds it — its row, its
 * position in the row and its value — before anything standardises or splits the rows.
 */
export function requireFiniteArray(a: NdArray, what: string): void {
  if (a.kind !== 'float') return;
  const per = a.shape.length <= 1 ? 1 : a.shape.slice(1).reduce((p, d) => p * d, 1);
  for (let i = 0; i < a.data.length; i++) {
    const v = a.data[i]!;
    if (!Number.isFinite(v))
      throw new DataError(
        `${what} holds ${v} at row ${Math.floor(i / per) + 1}${per > 1 ? `, value ${(i % per) + 1} of ${per}` : ''}; non-finite values must be removed or imputed before training`,
      );
  }
}

/** How image samples are laid out: flat vectors [N, H·W] or channel-first images [N, 1, H, W]. */
export type ImageLayout = 'flat' | 'image';

export interface ArrayRequest {
  name: string;
  /** Classification or regression (default: inferred from y, taskOfNumbers; text and integer labels are classes). */
  task?: Task;
  /** Names of the integer class codes 0 … K−1 (Fashion-MNIST's, or shared by a train and a test file). */
  classes?: readonly string[];
  /** Two classes as one target column [N,1] (for a model with one output) instead of one-hot. */
  binaryAsOneColumn?: boolean;
  /** How x becomes model inputs (default: 8-bit pixels to [0,1], booleans as they are, other numbers standardised). */
  scale?: ArrayScale;
}

/**
 * How raw array inputs become model inputs (the CLI's --scale): `none`, as stored (token ids,
 * or inputs a model was trained on as they are); `unit`, pixels to [0,1] as PyTorch's ToTensor
 * does — 8-bit values ÷255, values already within [0,1] as they are; `standard`, (x − mean)/std
 * per input, fitted on the training rows (after ÷255 for 8-bit arrays).
 */
export type ArrayScale = 'none' | 'unit' | 'standard';
export const ARRAY_SCALES: readonly ArrayScale[] = ['none', 'unit', 'standard'];

/** The preprocessing's scale factor and standardisation for x under a --scale choice (undefined: the default for x's element type). */
export function arrayScaling(x: NdArray, choice: ArrayScale | undefined, name: string): { scale: number; standardize: boolean } {
  const pixels = x.kind === 'uint8';
  if (choice === undefined) return { scale: pixels ? 1 / 255 : 1, standardize: !pixels && x.kind !== 'bool' };
  if (choice === 'none') return { scale: 1, standardize: false };
  if (choice === 'standard') return { scale: pixels ? 1 / 255 : 1, standardize: true };
  if (pixels) return { scale: 1 / 255, standardize: false };
  let lo = Infinity,
    hi = -Infinity,
    integers = true;
  for (let i = 0; i < x.data.length; i++) {
    const v = x.data[i]!;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    if (integers && !Number.isInteger(v)) integers = false;
  }
  if (lo >= 0 && hi <= 1) return { scale: 1, standardize: false };
  if (lo >= 0 && hi <= 255 && integers) return { scale: 1 / 255, standardize: false };
  throw new DataError(
    `${name}: --scale unit maps pixels 0…255 or values already in [0,1] to [0,1], but x holds values from ${lo} to ${hi}; use --scale none or standard`,
  );
}

/** What a preprocessing does to array inputs, in words (train and predict print it). */
export function describeScaling(p: { readonly scale: number; readonly standardize: boolean }): string {
  const divide = p.scale === 1 ? '' : Math.abs(p.scale * 255 - 1) < 1e-12 ? '÷255 (pixels to [0,1])' : `×${p.scale}`;
  if (p.standardize) return divide ? `${divide}, then standardised (training rows' mean and std)` : "standardised (training rows' mean and std)";
  return divide || 'none (values as stored)';
}

/**
 * x as raw model inputs (values as stored; 8-bit pixels 0…255, which the preprocessing's
 * scale 1/255 maps to [0,1]; other numbers it standardises, once fitted on the training rows)
 * and y as class labels or regression targets, with the
 * preprocessing (not yet fitted) that a model file keeps. A 1-d x is one feature per row.
 * DataErrors name the array: text features, row counts that differ, a target of the wrong
 * shape, one class.
 */
export function arraysDataset(x: NdArray, y: NdArray | undefined, req: ArrayRequest): { data: Dataset; preprocessing: Preprocessing } {
  const { name } = req;
  if (x.kind === 'text') throw new DataError(`${name}: x holds strings; features must be numbers`);
  if (x.shape.length === 0) throw new DataError(`${name}: x is a scalar; expected an array [N, …] with one row per sample`);
  const N = x.shape[0]!;
  const sample = x.shape.length === 1 ? [1] : x.shape.slice(1);
  // what x becomes is bounded by its rows and its values per row, zero-sized axes included: a
  // (0, 2³¹) array has no elements, yet once made a name per feature
  if (N === 0) throw new DataError(`${name}: x has shape (${x.shape.join(', ')}): no rows to learn from`);
  const per = sample.reduce((a, b) => a * b, 1);
  if (per === 0) throw new DataError(`${name}: x has shape (${x.shape.join(', ')}): no values per row`);
  if (per > MAX_SAMPLE_VALUES)
    throw new TooLargeError(`${name}: x has ${per} values per row (shape (${x.shape.join(', ')})), more than the ${MAX_SAMPLE_VALUES} a sample may have`, {
      elements: per,
    });
  requireFiniteArray(x, `${name}: x`);
  const xs = Tensor.zeros([N, ...sample]);
  xs.data.set(x.data);
  // by default 8-bit arrays are pixels, scaled to [0,1]; other numbers are standardised like a table's columns
  const { scale, standardize } = arrayScaling(x, req.scale, name);
  const base = { name, x: xs, ...(sample.length === 1 ? { featureNames: Array.from({ length: sample[0]! }, (_, j) => `x${j + 1}`) } : {}) };
  if (!y) return { data: { ...base, y: xs }, preprocessing: { version: 1, input: 'array', scale, standardize } };
  if (y.shape[0] !== N) throw new DataError(`${name}: x has ${N} rows but y has ${y.shape[0] ?? 0}`);
  const k = y.shape.length === 1 ? 1 : y.shape.slice(1).reduce((a, b) => a * b, 1);
  if (k === 0 || k > MAX_SAMPLE_VALUES)
    throw new DataError(`${name}: y has shape (${y.shape.join(', ')}); expected (N,) or (N, k) with 1 ≤ k ≤ ${MAX_SAMPLE_VALUES}`);
  requireFiniteArray(y, `${name}: y`);
  const labelsLike = y.kind === 'text' || y.kind === 'bool' || y.kind === 'int' || y.kind === 'uint8';
  const task = req.task ?? (labelsLike ? 'classify' : k === 1 ? taskOfNumbers(y.data) : 'regress');
  let target: Target;
  let data: Dataset;
  if (task === 'regress') {
    if (y.kind === 'text') throw new DataError(`${name}: y holds strings, which cannot be regressed (--task regress)`);
    const ys = Tensor.zeros([N, k]);
    ys.data.set(y.data);
    target = { task: 'regress' };
    data = { ...base, y: ys };
  } else {
    if (k !== 1) throw new DataError(`${name}: y has shape (${y.shape.join(', ')}); class labels are one per row, y (N,) or (N, 1)`);
    let classes: string[], labels: Int32Array;
    if (req.classes) {
      // integer codes into the given names, or the names themselves
      classes = [...req.classes];
      labels = new Int32Array(N);
      const byName = new Map(classes.map((c, j) => [c, j]));
      for (let i = 0; i < N; i++) {
        if (y.kind === 'text') {
          const c = byName.get(y.text![i]!);
          if (c === undefined)
            throw new DataError(
              `${name}: label '${y.text![i]}' at row ${i + 1} is not one of the classes ${classes.slice(0, 10).join(', ')}${classes.length > 10 ? ', …' : ''}`,
            );
          labels[i] = c;
          continue;
        }
        const c = y.data[i]!;
        if (!(Number.isInteger(c) && c >= 0 && c < classes.length))
          throw new DataError(`${name}: label ${c} at row ${i + 1} is not a class index below ${classes.length}`);
        labels[i] = c;
      }
    } else {
      ({ classes, labels } = classesOf(y.kind === 'text' ? y.text! : y.data, `${name}: y`, y.kind === 'bool' ? ['False', 'True'] : undefined));
      requireTwoClasses(labels, classes, `${name}: y`);
    }
    target = { task: 'classify', classes };
    data = { ...base, y: req.binaryAsOneColumn && classes.length === 2 ? Tensor.of(labels, [N, 1]) : oneHot(labels, classes.length), labels, classes };
  }
  return { data, preprocessing: { version: 1, input: 'array', scale, standardize, target } };
}

/** A set of per-sample [H, W] images laid out flat [N, H·W] or channel-first [N, 1, H, W] (other shapes unchanged). */
export function withImageLayout(ds: Dataset, layout: ImageLayout): Dataset {
  const s = ds.x.shape;
  if (s.length !== 3) return ds;
  const x = ds.x.reshape(layout === 'image' ? [s[0]!, 1, s[1]!, s[2]!] : [s[0]!, s[1]! * s[2]!]);
  return { ...ds, x, ...(ds.y === ds.x ? { y: x } : {}) };
}
