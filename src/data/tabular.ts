import { DataError, quote, TooLargeError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import { oneHot } from './dataset.js';
import type { Dataset } from './dataset.js';
import { featureWidth, inputNames } from './preprocessing.js';
import type { Feature, Preprocessing, Target } from './preprocessing.js';
import { classesOf, MAX_CLASSES, requireTwoClasses, taskOfNumbers } from './task.js';
import type { Task } from './task.js';
import { textKind } from './table.js';
import type { Table, TableColumn } from './table.js';

/**
 * A table as a data set: which column is the target and what it asks for, which columns are
 * numeric and which categorical (one-hot encoded), then the rows as raw model inputs.
 * Standardising the numeric ones is the preprocessing's next step (fitStatistics on the
 * training rows, then applyPreprocessing).
 */

/** Tensors a table may become (rows × model inputs, 4 bytes each, 256 MiB): beyond this it is refused before allocation. */
export const MAX_TABLE_ELEMENTS = 1 << 26;
/** Model inputs a table may become, its categorical columns one-hot (a model's first layer is as wide). */
export const MAX_TABLE_INPUTS = 1 << 16;
/** A categorical column with more distinct values than this is refused (an identifier, most likely). */
export const MAX_CATEGORIES = 1000;

export interface TableRequest {
  /** The target column's name (default: the last column); null: no target. */
  target?: string | null;
  /** Classification or regression (default: inferred from the target, taskOfNumbers). */
  task?: Task;
  /** For unsupervised use: without `target`, the last column is the target only when it holds text, or the file names its classes (scikit-learn's count line). */
  optionalTarget?: boolean;
}

type TablePreprocessing = Extract<Preprocessing, { input: 'table' }>;

/** The text of row i of a column: its field, or the number it held written back. */
function cellText(c: TableColumn, i: number): string {
  return c.texts?.[i] ?? String(c.numbers[i]);
}

function where(t: Table, c: TableColumn, i: number): string {
  return `${t.name}: line ${t.lines[i]}, column ${t.columns.indexOf(c) + 1} (${c.name})`;
}

/** A DataError for row i of a column that holds no usable value: missing, infinite, or text where numbers are needed. */
function badCell(t: Table, c: TableColumn, i: number, expected: string): DataError {
  const s = c.texts?.[i] ?? '';
  const kind = textKind(s);
  if (kind === 'missing')
    return new DataError(
      `${where(t, c, i)}: ${s ? `'${s}' is a missing value` : 'an empty field is a missing value'}, not a finite number; paralens does not impute: fill it in or drop the row`,
    );
  if (kind === 'non-finite') return new DataError(`${where(t, c, i)}: '${s}' is not a finite number`);
  return new DataError(`${where(t, c, i)}: '${s}' is not a finite number (${expected})`);
}

/** The first row of a column that holds a missing value, or −1. */
function firstMissing(c: TableColumn): number {
  if (!c.texts) return -1;
  return c.texts.findIndex((s) => s !== undefined && textKind(s) !== 'text');
}

/** How many rows of a column hold text (not numbers, not missing-value markers), and the first. */
function textRows(c: TableColumn): { count: number; first: number } {
  let count = 0,
    first = -1;
  c.texts?.forEach((s, i) => {
    if (s !== undefined && textKind(s) === 'text') {
      count++;
      if (first < 0) first = i;
    }
  });
  return { count, first };
}

/** A DataError naming the first field of the named columns that is not a finite number (missing, infinite, text). */
export function requireNumbers(t: Table, names: readonly string[]): void {
  for (const c of t.columns) {
    if (!names.includes(c.name) || !c.texts) continue;
    const i = c.texts.findIndex((s) => s !== undefined);
    if (i >= 0) throw badCell(t, c, i, 'a feature');
  }
}

/** A feature column's type: numeric when every value is a number, categorical when they are text; a column mostly of numbers with some text is refused. */
function featureOf(t: Table, c: TableColumn): Feature {
  const missing = firstMissing(c);
  if (missing >= 0) throw badCell(t, c, missing, 'a feature');
  const text = textRows(c);
  if (text.count === 0) return { name: c.name, type: 'numeric' };
  if (text.count * 2 < t.rows) throw badCell(t, c, text.first, `the column holds numbers in ${t.rows - text.count} of ${t.rows} rows`);
  const categories = [...new Set(Array.from({ length: t.rows }, (_, i) => cellText(c, i)))].sort();
  if (categories.length > MAX_CATEGORIES) {
    throw new DataError(
      `${t.name}: column ${t.columns.indexOf(c) + 1} (${c.name}) has ${categories.length} distinct text values, more than ${MAX_CATEGORIES} categories to one-hot encode: is it an identifier? Drop it from the file`,
    );
  }
  return { name: c.name, type: 'categorical', categories };
}

function targetOf(t: Table, c: TableColumn, task: Task | undefined): Target {
  const missing = firstMissing(c);
  if (missing >= 0) throw badCell(t, c, missing, 'the target');
  const text = textRows(c);
  const what = `${t.name}: target column '${c.name}'`;
  if (text.count > 0 && task === 'regress')
    throw new DataError(`${where(t, c, text.first)}: '${c.texts![text.first]}' cannot be regressed (--task regress); the target must hold numbers`);
  const chosen = task ?? (text.count > 0 ? 'classify' : taskOfNumbers(c.numbers));
  if (chosen === 'regress') return { name: c.name, task: 'regress' };
  const names = text.count === 0 && t.classNames && c === t.columns.at(-1) ? t.classNames : undefined;
  const labels = text.count > 0 ? Array.from({ length: t.rows }, (_, i) => cellText(c, i)) : c.numbers;
  const found = classesOf(labels, what, names);
  requireTwoClasses(found.labels, found.classes, what);
  return { name: c.name, task: 'classify', classes: found.classes };
}

/**
 * What a table's columns are (not yet fitted: no means or stds): the target column
 * (`req.target`, default the last), classification or regression, and every other column as
 * a numeric or categorical feature. DataErrors name the line and column of a missing or
 * non-finite value, of text in a column of numbers, and a target with one class.
 */
export function tablePreprocessing(t: Table, req: TableRequest = {}): TablePreprocessing {
  let target: TableColumn | undefined;
  if (req.target !== undefined && req.target !== null) {
    target = t.columns.find((c) => c.name === req.target);
    if (!target) throw new DataError(`${t.name}: no column '${req.target}'; columns: ${t.columns.map((c) => c.name).join(', ')}`);
  } else if (req.target === undefined) {
    const last = t.columns.at(-1)!;
    if (!req.optionalTarget || textRows(last).count > 0 || t.classNames) target = last;
  }
  if (target && t.columns.length < 2) throw new DataError(`${t.name}: one column, the target '${target.name}'; there are no features to learn from`);
  const features = t.columns.filter((c) => c !== target).map((c) => featureOf(t, c));
  const inputs = features.reduce((n, f) => n + featureWidth(f), 0);
  if (inputs > MAX_TABLE_INPUTS) {
    const widest = features
      .filter((f) => f.type === 'categorical')
      .sort((a, b) => featureWidth(b) - featureWidth(a))
      .slice(0, 3)
      .map((f) => `${quote(f.name, 30)} ${featureWidth(f)}`);
    throw new TooLargeError(
      `${t.name}: its columns one-hot encoded make ${inputs} model inputs, more than ${MAX_TABLE_INPUTS} (widest: ${widest.join(', ')} categories); drop or merge categorical columns`,
      { elements: inputs },
    );
  }
  return { version: 1, input: 'table', features, ...(target ? { target: targetOf(t, target, req.task) } : {}) };
}

export interface EncodeOptions {
  /** Two classes as one target column [N,1] (for a model with one output, trained with bce) instead of one-hot [N,2]. */
  binaryAsOneColumn?: boolean;
}

/**
 * The rows of a table as raw model inputs x [N, d] (numbers as written, categories one-hot)
 * and, when the table has the target column, targets y: one-hot class rows (or [N,1] for two
 * classes, see EncodeOptions), or the numbers to regress [N,1]. Columns are found by name, so
 * a file for prediction may order them differently and may lack the target. DataErrors name
 * a missing column, and the line and column of a value that does not fit (a category not
 * seen in training, a class not in the model's).
 */
export function encodeTable(t: Table, p: TablePreprocessing, opts: EncodeOptions = {}): Dataset {
  const byName = new Map(t.columns.map((c) => [c.name, c]));
  const cols = p.features.map((f) => {
    const c = byName.get(f.name);
    if (!c)
      throw new DataError(
        `${t.name}: no column '${f.name}'; the model takes ${p.features.map((g) => g.name).join(', ')}${t.header ? '' : ' (this file has no header row, so its columns are named c1, c2, …)'}`,
      );
    return c;
  });
  const d = p.features.reduce((s, f) => s + featureWidth(f), 0);
  const N = t.rows;
  if (N * d > MAX_TABLE_ELEMENTS) throw new TooLargeError(`${t.name}: ${N} rows × ${d} inputs is more than ${MAX_TABLE_ELEMENTS} values`, { elements: N * d });
  const x = Tensor.zeros([N, d]);
  let at = 0;
  p.features.forEach((f, k) => {
    const c = cols[k]!;
    if (f.type === 'numeric') {
      for (let i = 0; i < N; i++) {
        const v = c.numbers[i]!;
        if (Number.isNaN(v)) throw badCell(t, c, i, 'the column is numeric');
        x.data[i * d + at] = v;
      }
    } else {
      const index = new Map(f.categories.map((s, j) => [s, j]));
      for (let i = 0; i < N; i++) {
        const s = cellText(c, i);
        const j = index.get(s);
        if (j === undefined) {
          if (textKind(s) !== 'text') throw badCell(t, c, i, 'a category');
          throw new DataError(
            `${where(t, c, i)}: '${s}' is not one of the ${f.categories.length} categories of training: ${f.categories.slice(0, 10).join(', ')}${f.categories.length > 10 ? ', …' : ''}`,
          );
        }
        x.data[i * d + at + j] = 1;
      }
    }
    at += featureWidth(f);
  });
  const base = { name: t.name, x, featureNames: inputNames(p.features) };
  const tc = p.target?.name !== undefined ? byName.get(p.target.name) : undefined;
  if (!p.target || !tc) return { ...base, y: x };
  const missing = firstMissing(tc);
  if (missing >= 0) throw badCell(t, tc, missing, 'the target');
  if (p.target.task === 'regress') {
    const y = Tensor.zeros([N, 1]);
    for (let i = 0; i < N; i++) {
      if (Number.isNaN(tc.numbers[i]!)) throw badCell(t, tc, i, 'the target is regressed');
      y.data[i] = tc.numbers[i]!;
    }
    return { ...base, y };
  }
  const classes = p.target.classes;
  if (classes.length > MAX_CLASSES) throw new DataError(`${t.name}: ${classes.length} classes, more than ${MAX_CLASSES}`);
  const numericNames = t.classNames && tc === t.columns.at(-1) && !tc.texts && t.classNames.join('\n') === classes.join('\n') ? t.classNames : undefined;
  const index = new Map(classes.map((s, j) => [s, j]));
  const labels = new Int32Array(N);
  for (let i = 0; i < N; i++) {
    const v = tc.numbers[i]!;
    const s = numericNames && Number.isInteger(v) ? (numericNames[v] ?? cellText(tc, i)) : cellText(tc, i);
    const j = index.get(s);
    if (j === undefined)
      throw new DataError(
        `${where(t, tc, i)}: '${s}' is not one of the model's classes: ${classes.slice(0, 10).join(', ')}${classes.length > 10 ? ', …' : ''}`,
      );
    labels[i] = j;
  }
  const y = opts.binaryAsOneColumn && classes.length === 2 ? Tensor.of(labels, [N, 1]) : oneHot(labels, classes.length);
  return { ...base, y, labels, classes };
}
