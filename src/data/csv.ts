import { DataError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import { oneHot } from './dataset.js';
import type { Dataset } from './dataset.js';

export interface CsvOptions {
  /** Name of the data set in messages. */
  name?: string;
  /** Column holding the class label (name or 0-based index); default: the last column. `null`: no labels. */
  label?: string | number | null;
  /** Whether the first row names the columns (default: detected — a row with a non-numeric feature field). */
  header?: boolean;
}

/**
 * Parses a CSV of numeric features and (optionally) a class column into a Dataset with
 * one-hot targets. A row with the wrong number of fields or a non-numeric, non-finite
 * feature throws a DataError naming the line and column.
 */
export function parseCsv(text: string, opts: CsvOptions = {}): Dataset {
  const name = opts.name ?? 'csv';
  const lines = text.split(/\r?\n/).map((l, i) => ({ l: l.trim(), n: i + 1 })).filter((r) => r.l !== '' && !r.l.startsWith('#'));
  if (lines.length === 0) throw new DataError(`${name}: no rows`);
  const split = (s: string): string[] => s.split(',').map((f) => f.trim());
  const first = split(lines[0]!.l);
  const header = opts.header ?? (lines.length > 1 && isHeaderLike(first, split(lines[1]!.l)));
  const names = header ? first : first.map((_, j) => `c${j + 1}`);
  const rows = header ? lines.slice(1) : lines;
  if (rows.length === 0) throw new DataError(`${name}: no data rows after the header`);
  const width = names.length;
  let labelCol: number | null;
  if (opts.label === null) labelCol = null;
  else if (typeof opts.label === 'number') labelCol = opts.label;
  else if (typeof opts.label === 'string') {
    labelCol = names.indexOf(opts.label);
    if (labelCol < 0) throw new DataError(`${name}: no column '${opts.label}'; columns: ${names.join(', ')}`);
  } else labelCol = width - 1;
  if (labelCol !== null && (labelCol < 0 || labelCol >= width)) throw new DataError(`${name}: label column ${labelCol} is outside 0..${width - 1}`);
  const d = labelCol === null ? width : width - 1;
  const x = Tensor.zeros([rows.length, d]);
  const rawLabels: string[] = [];
  rows.forEach(({ l, n }, i) => {
    const f = split(l);
    if (f.length !== width) throw new DataError(`${name}: line ${n} has ${f.length} fields, expected ${width}`);
    let j = 0;
    f.forEach((v, c) => {
      if (c === labelCol) {
        rawLabels.push(v);
        return;
      }
      const num = Number(v);
      if (v === '' || !Number.isFinite(num)) throw new DataError(`${name}: line ${n}, column ${c + 1} (${names[c]}): '${v}' is not a finite number`);
      x.data[i * d + j++] = num;
    });
  });
  const featureNames = names.filter((_, c) => c !== labelCol);
  if (labelCol === null) return { name, x, y: x, featureNames };
  // numeric labels in numeric order (0, 1, 2, …, 10), others alphabetically
  const numeric = rawLabels.every((l) => l !== '' && Number.isFinite(Number(l)));
  const classes = [...new Set(rawLabels)].sort(numeric ? (a, b) => Number(a) - Number(b) : undefined);
  const labels = Int32Array.from(rawLabels.map((s) => classes.indexOf(s)));
  return { name, x, y: oneHot(labels, classes.length), labels, classes, featureNames };
}

function isHeaderLike(first: string[], second: string[]): boolean {
  // a header row has a non-numeric field where the data row below it has a number
  return first.some((f, j) => !Number.isFinite(Number(f)) && Number.isFinite(Number(second[j])));
}
