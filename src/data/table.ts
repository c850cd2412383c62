import { DataError, formatCount, quote, TooLargeError } from '../errors.js';
import { CANDIDATES, detectDelimiter, eachRecord, firstRecords, shown } from './delimited.js';
import type { RawRecord } from './delimited.js';

/**
 * Delimited text files (CSV, TSV, ';'- or '|'-separated, whitespace-aligned) read into columns.
 * One pass over the text: numbers go straight into a Float64Array per column, only the fields
 * that are not numbers are kept as text, so a large numeric file costs 8 bytes a cell. What a
 * column means (numeric, categorical, the target) is decided later, by src/data/tabular.ts.
 */

/**
 * A number as CSV files write it: decimal, optional exponent (no hex, no "Infinity"). Written so
 * that matching is linear in the field (`\d+\.?\d*` backtracks quadratically on a long run of digits).
 */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Fields that mean "no value" in files exported by pandas, R and spreadsheets. */
const MISSING = new Set(['', 'na', 'n/a', 'nan', 'null', 'none', '?']);
const NON_FINITE = /^[+-]?(inf|infinity)$/i;

/** What a field that is not a number is: a missing-value marker, an infinity, or text. */
export function textKind(s: string): 'missing' | 'non-finite' | 'text' {
  if (MISSING.has(s.toLowerCase())) return 'missing';
  return NON_FINITE.test(s) ? 'non-finite' : 'text';
}

/** A field as a finite number, or undefined. */
export function fieldNumber(s: string): number | undefined {
  if (!NUMBER.test(s)) return undefined;
  const v = Number(s);
  return Number.isFinite(v) ? v : undefined;
}

export interface TableColumn {
  readonly name: string;
  /** Each row's value where the field is a finite number, NaN where it is not. */
  readonly numbers: Float64Array;
  /** Each row's field where it is not a finite number (undefined elsewhere); absent when every field is a number. */
  readonly texts?: readonly (string | undefined)[];
}

export interface Table {
  readonly name: string;
  readonly columns: readonly TableColumn[];
  readonly rows: number;
  /** The line of the file each row starts on (1-based), for messages. */
  readonly lines: Int32Array;
  readonly delimiter: string;
  /** Whether the first row named the columns (otherwise they are c1 … cN). */
  readonly header: boolean;
  /**
   * Class names from scikit-learn's first line "N,d,name0,name1,…" (its bundled data sets,
   * sklearn/datasets/data/*.csv): integer codes 0, 1, … in the target column index them.
   */
  readonly classNames?: readonly string[];
}

/**
 * What a table may become (docs/reliability.md, section 3): cells (rows × columns, 8 bytes each
 * as numbers), columns (each its own arrays), and characters in one field (a text field is a
 * category, kept as a string). The byte-level scan (`scanTableBytes`) refuses a file beyond
 * the cells or with a line beyond MAX_LINE_BYTES before the text is decoded.
 */
export const MAX_TABLE_CELLS = 1 << 24;
export const MAX_TABLE_COLUMNS = 1 << 16;
export const MAX_FIELD_CHARS = 1 << 16;
export const MAX_LINE_BYTES = 1 << 24;

export interface ReadTableOptions {
  /** Name in messages (the file). */
  name?: string;
  /** Whether the first row names the columns; default: detected (see `looksLikeHeader`). */
  header?: boolean;
  /** The field delimiter; default: detected from the first lines (',', tab, ';', '|', or runs of spaces). */
  delimiter?: string;
}

/**
 * Reads delimited text into a Table. Quoted fields ("a, b", "say ""hi""", line breaks inside
 * quotes) are RFC 4180's; fields are trimmed; blank lines and lines starting with '#' are
 * skipped; a UTF-8 byte-order mark is dropped. DataErrors name the line: a row with another
 * number of fields than the first (and, when it holds another candidate delimiter, which),
 * an unterminated quote, text after a closing quote, more than MAX_TABLE_CELLS cells.
 */
export function readTable(text: string, opts: ReadTableOptions = {}): Table {
  const name = opts.name ?? 'csv';
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const delimiter = opts.delimiter ?? detectDelimiter(text);
  const first = firstRecords(text, delimiter, name, 4);
  if (first.length === 0) throw new DataError(`${name}: no rows`);
  const counts = sklearnCounts(first);
  const table = buildTable(text, delimiter, name, opts.header, counts);
  // scikit-learn's first line says how many rows follow, and its class names index the last
  // column's integer codes; a line that only looked like it is data
  if (counts && (Number(first[0]!.fields[0]) !== table.rows || !codesOf(table.columns.at(-1)!, counts.classNames.length))) {
    return buildTable(text, delimiter, name, opts.header, undefined);
  }
  return table;
}

/** Whether every value of the column is an integer code below k (always, when there are no names). */
function codesOf(c: TableColumn, k: number): boolean {
  return k === 0 || (!c.texts && c.numbers.every((v) => Number.isInteger(v) && v >= 0 && v < k));
}

/**
 * scikit-learn's count line "N,d,name0,name1,…" (then, in boston_house_prices.csv, a header):
 * two positive integers, d one less than the width of the rows below, the rest class names or
 * empty. Returns the class names, or undefined when the first record is not such a line.
 */
function sklearnCounts(first: readonly RawRecord[]): { classNames: string[] } | undefined {
  if (first.length < 2) return undefined;
  const [r0, r1] = [first[0]!.fields, first[1]!.fields];
  const isCount = (s: string | undefined): boolean => s !== undefined && /^\d+$/.test(s) && Number(s) > 0;
  if (r0.length < 2 || !isCount(r0[0]) || !isCount(r0[1])) return undefined;
  if (Number(r0[1]) !== r1.length - 1) return undefined;
  const rest = r0.slice(2);
  if (rest.some((s) => s !== '' && fieldNumber(s) !== undefined)) return undefined;
  return { classNames: rest.filter((s) => s !== '') };
}

/**
 * Whether the first record names the columns: every field of it is text (not a number, not a
 * missing-value marker), or some field is text where the rows below hold numbers. An all-text
 * first row is taken as a header, as pandas does.
 */
function looksLikeHeader(r0: readonly string[], below: readonly (readonly string[])[]): boolean {
  const isText = (s: string): boolean => fieldNumber(s) === undefined && textKind(s) === 'text';
  if (r0.every(isText)) return true;
  return r0.some(
    (s, j) => isText(s) && below.length > 0 && below.filter((r) => r[j] !== undefined && fieldNumber(r[j]!) !== undefined).length * 2 > below.length,
  );
}

function buildTable(text: string, delimiter: string, name: string, header: boolean | undefined, counts: { classNames: string[] } | undefined): Table {
  let names: string[] | undefined;
  let width = 0,
    skip = counts ? 1 : 0,
    rows = 0;
  let hasHeader = false;
  let numbers: GrowingColumn[] = [];
  let texts: (string | undefined)[][] = [];
  const lines: number[] = [];
  const pending: RawRecord[] = [];
  const start = (r0: RawRecord, below: RawRecord[]): void => {
    hasHeader =
      header ??
      looksLikeHeader(
        r0.fields,
        below.map((r) => r.fields),
      );
    width = r0.fields.length;
    if (width > MAX_TABLE_COLUMNS)
      throw new TooLargeError(`${name}: line ${r0.line} has ${width} fields, more than the ${MAX_TABLE_COLUMNS} columns a table may have`, { elements: width });
    names = hasHeader ? r0.fields.map((f, j) => f || `c${j + 1}`) : Array.from({ length: width }, (_, j) => `c${j + 1}`);
    const seen = new Set<string>();
    for (const n of names) {
      if (seen.has(n)) throw new DataError(`${name}: the header names two columns ${quote(n)}; column names must be unique`);
      seen.add(n);
    }
    numbers = names.map(() => new GrowingColumn());
    texts = names.map(() => []);
  };
  const add = (r: RawRecord): void => {
    if (r.fields.length !== width) {
      const other = [...CANDIDATES, '\t'].find((d) => d !== delimiter && r.fields.some((f) => f.includes(d)));
      const hint =
        other !== undefined ? `; it contains '${shown(other)}': the file is read with the delimiter '${shown(delimiter)}' (detected from its first lines)` : '';
      throw new DataError(`${name}: line ${r.line} has ${r.fields.length} field${r.fields.length === 1 ? '' : 's'}, expected ${width}${hint}`);
    }
    if ((rows + 1) * width > MAX_TABLE_CELLS)
      throw new TooLargeError(`${name}: more than ${MAX_TABLE_CELLS} cells (rows × columns) by line ${r.line}; paralens reads tables up to that size`, {
        elements: (rows + 1) * width,
      });
    for (let j = 0; j < width; j++) {
      const f = r.fields[j]!;
      if (f.length > MAX_FIELD_CHARS)
        throw new TooLargeError(`${name}: line ${r.line}, column ${j + 1} has ${f.length} characters, more than the ${MAX_FIELD_CHARS} a field may have`, {
          elements: f.length,
        });
      const v = fieldNumber(f);
      numbers[j]!.push(v ?? NaN);
      if (v === undefined) texts[j]![rows] = f;
    }
    lines.push(r.line);
    rows++;
  };
  eachRecord(text, delimiter, name, (r) => {
    if (skip > 0) {
      skip--;
      return true;
    }
    if (names === undefined) {
      pending.push(r);
      if (pending.length < 4) return true;
      start(pending[0]!, pending.slice(1));
      for (const p of pending.slice(hasHeader ? 1 : 0)) add(p);
      pending.length = 0;
      return true;
    }
    add(r);
    return true;
  });
  if (names === undefined) {
    if (pending.length === 0) throw new DataError(`${name}: no rows`);
    start(pending[0]!, pending.slice(1));
    for (const p of pending.slice(hasHeader ? 1 : 0)) add(p);
  }
  if (rows === 0) throw new DataError(`${name}: no data rows after the header`);
  const columns: TableColumn[] = names!.map((n, j) => {
    const t = texts[j]!;
    // a sparse array: only the rows whose field is not a number hold an entry
    const any = t.length > 0;
    return { name: n, numbers: numbers[j]!.values(), ...(any ? { texts: Array.from({ length: rows }, (_, i) => t[i]) } : {}) };
  });
  return {
    name,
    columns,
    rows,
    lines: Int32Array.from(lines),
    delimiter,
    header: hasHeader,
    ...(counts && counts.classNames.length ? { classNames: counts.classNames } : {}),
  };
}

/** A column of numbers as it is read: a Float64Array that doubles when full (8 bytes a cell, not a JS array's boxed values). */
class GrowingColumn {
  private data = new Float64Array(16);
  private length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const more = new Float64Array(2 * this.data.length);
      more.set(this.data);
      this.data = more;
    }
    this.data[this.length++] = v;
  }
  values(): Float64Array {
    return this.data.slice(0, this.length);
  }
}

/**
 * A table file's bytes, before they are decoded (a decoded string and the columns would take
 * several times as much): the delimiter and width from the first 64 KiB, then the lines
 * counted — refused (TooLargeError) as soon as lines × width pass MAX_TABLE_CELLS or one line
 * passes MAX_LINE_BYTES. Lines bound records from above (a quoted field may span lines), so the
 * estimate errs on the safe side only for files of multi-line fields.
 */
export function scanTableBytes(bytes: Uint8Array, name: string, delimiter?: string): void {
  const head = new TextDecoder().decode(bytes.subarray(0, 1 << 16));
  const d = delimiter ?? detectDelimiter(head);
  let width = 1;
  try {
    width = Math.max(1, firstRecords(head, d, name, 1)[0]?.fields.length ?? 1);
  } catch {
    // an unterminated quote in the head: the parser names it; count lines with width 1
  }
  let lines = 0,
    start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] !== 10) continue;
    if (i - start > MAX_LINE_BYTES) lineTooLong(name, lines + 1);
    start = i + 1;
    if (++lines * width > MAX_TABLE_CELLS)
      throw new TooLargeError(
        `${name}: about ${formatCount(lines)}+ rows × ${width} columns, more than the ${MAX_TABLE_CELLS} cells (rows × columns) paralens reads into a table`,
        { elements: lines * width },
      );
  }
  if (bytes.length - start > MAX_LINE_BYTES) lineTooLong(name, lines + 1);
}

function lineTooLong(name: string, line: number): never {
  throw new TooLargeError(`${name}: line ${line} is longer than ${MAX_LINE_BYTES} bytes, the longest line paralens reads`, { bytes: MAX_LINE_BYTES });
}

/**
 * UTF-8 bytes as text; invalid UTF-8 (which would become U+FFFD silently) is a DataError naming
 * the line and byte where it starts.
 */
export function decodeTableText(bytes: Uint8Array, name: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < at; i++) if (bytes[i] === 10) line++;
    throw new DataError(`${name}: line ${line} holds bytes that are not UTF-8 (at byte ${at}); save the file as UTF-8`);
  }
}

/** The offset of the first byte that does not begin or continue a valid UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const c = b[i]!;
    const n = c < 0x80 ? 0 : c >= 0xc2 && c <= 0xdf ? 1 : c >= 0xe0 && c <= 0xef ? 2 : c >= 0xf0 && c <= 0xf4 ? 3 : -1;
    if (n < 0 || (n > 0 && i + n >= b.length)) return i;
    const c1 = b[i + 1] ?? 0;
    // no overlong forms, no surrogates, nothing above U+10FFFF
    if (n >= 2 && ((c === 0xe0 && c1 < 0xa0) || (c === 0xed && c1 > 0x9f) || (c === 0xf0 && c1 < 0x90) || (c === 0xf4 && c1 > 0x8f))) return i;
    for (let k = 1; k <= n; k++) if (((b[i + k] ?? 0) & 0xc0) !== 0x80) return i;
    i += n + 1;
  }
  return b.length;
}
