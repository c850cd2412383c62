import { DataError, quote } from '../errors.js';

/** What a target asks for: class labels, or numbers to regress. */
export type Task = 'classify' | 'regress';

/** A numeric target with at most this many distinct integer values is taken for class labels. */
export const MAX_INFERRED_CLASSES = 20;
/** More classes than this are refused (a column of identifiers, most likely). */
export const MAX_CLASSES = 1000;

/** The task numbers suggest: classification when every value is an integer and there are few distinct ones, else regression. */
export function taskOfNumbers(values: ArrayLike<number>): Task {
  const seen = new Set<number>();
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isInteger(v)) return 'regress';
    seen.add(v);
    if (seen.size > MAX_INFERRED_CLASSES) return 'regress';
  }
  return 'classify';
}

/**
 * Class names and each row's class index for a column of labels: numbers in numeric order
 * (0, 1, 2, …, 10), text alphabetically; integer codes 0 … K−1 take `names[code]` when
 * names are given (scikit-learn's files list them). More than MAX_CLASSES classes is a
 * DataError naming `what`.
 */
export function classesOf(labels: readonly string[] | ArrayLike<number>, what: string, names?: readonly string[]): { classes: string[]; labels: Int32Array } {
  const n = labels.length;
  const numeric = typeof labels[0] === 'number';
  let classes: string[];
  let index: (v: string | number) => number;
  if (numeric && names && Array.from(labels as ArrayLike<number>).every((v) => Number.isInteger(v) && v >= 0 && v < names.length)) {
    classes = [...names];
    index = (v) => v as number;
  } else {
    const distinct = [...new Set(Array.from(labels as ArrayLike<string | number>))];
    if (distinct.length > MAX_CLASSES)
      throw new DataError(
        `${what} has ${distinct.length} distinct values, more than ${MAX_CLASSES} classes: is it an identifier, or a number to regress (--task regress)?`,
      );
    distinct.sort(numeric ? (a, b) => (a as number) - (b as number) : (a, b) => (a < b ? -1 : a > b ? 1 : 0));
    classes = distinct.map(String);
    const at = new Map<string | number, number>(distinct.map((v, i) => [v, i]));
    index = (v) => at.get(v)!;
  }
  const out = new Int32Array(n);
  for (let i = 0; i < n; i++) out[i] = index(labels[i]!);
  return { classes, labels: out };
}

/** A DataError unless the labels hold two classes or more (what training a classifier needs). */
export function requireTwoClasses(labels: Int32Array, classes: readonly string[], what: string): void {
  const first = labels[0] ?? 0;
  if (labels.every((c) => c === first))
    throw new DataError(`${what} has one class (${quote(classes[first])}) in all ${labels.length} rows; classification needs two or more`);
}
