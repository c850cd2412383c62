import { DataError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import { oneHot } from './dataset.js';
import type { Dataset } from './dataset.js';
import { readTable } from './table.js';
import { requireNumbers } from './tabular.js';
import { classesOf } from './task.js';

export interface CsvOptions {
  /** Name of the data set in messages. */
  name?: string;
  /** Column holding the class label (name or 0-based index); default: the last column. `null`: no labels. */
  label?: string | number | null;
  /** Whether the first row names the columns (default: detected, see readTable). */
  header?: boolean;
}

/**
 * Parses a CSV of numeric features and (optionally) a class column into a Dataset with
 * one-hot targets (classes: numbers in numeric order, text alphabetically). A row with the
 * wrong number of fields or a feature that is not a finite number throws a DataError naming
 * the line and column. For files with text features or a target to regress, read the table
 * with readTable and encode it with tablePreprocessing / encodeTable.
 */
export function parseCsv(text: string, opts: CsvOptions = {}): Dataset {
  const t = readTable(text, { name: opts.name ?? 'csv', header: opts.header });
  const names = t.columns.map((c) => c.name);
  let labelCol: number | null;
  if (opts.label === null) labelCol = null;
  else if (typeof opts.label === 'number') labelCol = opts.label;
  else if (typeof opts.label === 'string') {
    labelCol = names.indexOf(opts.label);
    if (labelCol < 0) throw new DataError(`${t.name}: no column '${opts.label}'; columns: ${names.join(', ')}`);
  } else labelCol = names.length - 1;
  if (labelCol !== null && !(Number.isInteger(labelCol) && labelCol >= 0 && labelCol < names.length))
    throw new DataError(`${t.name}: label column ${labelCol} is outside 0..${names.length - 1}`);
  const features = t.columns.filter((_, j) => j !== labelCol);
  requireNumbers(
    t,
    features.map((c) => c.name),
  );
  const d = features.length;
  const x = Tensor.zeros([t.rows, d]);
  features.forEach((c, j) => {
    for (let i = 0; i < t.rows; i++) x.data[i * d + j] = c.numbers[i]!;
  });
  const featureNames = features.map((c) => c.name);
  if (labelCol === null) return { name: t.name, x, y: x, featureNames };
  const lc = t.columns[labelCol]!;
  const raw = lc.texts ? Array.from({ length: t.rows }, (_, i) => lc.texts![i] ?? String(lc.numbers[i])) : lc.numbers;
  const { classes, labels } = classesOf(raw, `${t.name}: label column '${lc.name}'`);
  return { name: t.name, x, y: oneHot(labels, classes.length), labels, classes, featureNames };
}
