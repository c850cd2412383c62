import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { readTable } from '../../src/data/table.js';
import type { Table } from '../../src/data/table.js';
import { needs, SKLEARN_DATA, sklearnData } from '../peer/available.js';

const cell = (t: Table, col: number, row: number): string | number => t.columns[col]!.texts?.[row] ?? t.columns[col]!.numbers[row]!;

describe('readTable', () => {
  it('reads a header, numbers and text, with the line of every row', () => {
    const t = readTable('# a comment\nname,age,colour\n\nann,31,red\nbob,4.5e1,blue\n', { name: 't' });
    expect(t.header).toBe(true);
    expect(t.columns.map((c) => c.name)).toEqual(['name', 'age', 'colour']);
    expect(t.rows).toBe(2);
    expect(Array.from(t.lines)).toEqual([4, 5]);
    expect(Array.from(t.columns[1]!.numbers)).toEqual([31, 45]);
    expect(t.columns[1]!.texts).toBeUndefined();
    expect(t.columns[0]!.texts).toEqual(['ann', 'bob']);
  });

  it.each([
    [',', 'a,b,c\n1,2,3\n4,5,6'],
    [';', 'a;b;c\n1,5;2;3\n4;5;6'],
    ['\t', 'a\tb\tc\n1\t2\t3\n4\t5\t6'],
    ['|', 'a|b|c\n1|2|3\n4|5|6'],
    [' ', 'a  b   c\n 1 2 3\n4    5 6  \n'],
  ])("detects the delimiter '%s'", (d, text) => {
    const t = readTable(text);
    expect(t.delimiter).toBe(d);
    expect(t.columns.map((c) => c.name)).toEqual(['a', 'b', 'c']);
    expect(t.rows).toBe(2);
  });

  it('reads RFC 4180 quotes: delimiters, doubled quotes and line breaks inside a field', () => {
    const t = readTable('id,text\n1,"a, b"\n2,"say ""hi"""\n3,"two\nlines"\n4,plain\n');
    expect(t.columns[1]!.texts).toEqual(['a, b', 'say "hi"', 'two\nlines', 'plain']);
    expect(Array.from(t.lines)).toEqual([2, 3, 4, 6]);
  });

  it('drops a byte-order mark and reads \\r\\n line ends', () => {
    const t = readTable('\uFEFFx,y\r\n1,2\r\n3,4\r\n');
    expect(t.columns.map((c) => c.name)).toEqual(['x', 'y']);
    expect(Array.from(t.columns[1]!.numbers)).toEqual([2, 4]);
  });

  it('without a header row, names the columns c1 … cN', () => {
    const t = readTable('1,2,a\n3,4,b\n');
    expect(t.header).toBe(false);
    expect(t.columns.map((c) => c.name)).toEqual(['c1', 'c2', 'c3']);
    expect(t.rows).toBe(2);
  });

  it("reads scikit-learn's first line 'N,d,class names' (iris.csv, wine_data.csv) and its header after it (boston)", () => {
    const t = readTable('3,2,setosa,virginica\n5.1,3.5,0\n4.9,3.0,1\n6.3,2.9,1\n');
    expect(t.classNames).toEqual(['setosa', 'virginica']);
    expect(t.rows).toBe(3);
    expect(t.header).toBe(false);
    const b = readTable('2,2,,\n"A","B","Y"\n1,2,3\n4,5,6\n');
    expect(b.classNames).toBeUndefined();
    expect(b.columns.map((c) => c.name)).toEqual(['A', 'B', 'Y']);
    expect(b.rows).toBe(2);
  });

  it('a first line that only looks like a count line (its count is wrong) is data', () => {
    const t = readTable('5,2,x\n1,2,y\n3,4,z\n');
    expect(t.classNames).toBeUndefined();
    expect(t.rows).toBe(3);
  });

  it('the real scikit-learn files: wine_data.csv and breast_cancer.csv', (ctx) => {
    needs(ctx, sklearnData());
    const wine = readFileSync(`${SKLEARN_DATA}/wine_data.csv`, 'utf8');
    const cancer = readFileSync(`${SKLEARN_DATA}/breast_cancer.csv`, 'utf8');
    const w = readTable(wine, { name: 'wine' });
    expect([w.rows, w.columns.length, w.classNames]).toEqual([178, 14, ['class_0', 'class_1', 'class_2']]);
    const c = readTable(cancer, { name: 'cancer' });
    expect([c.rows, c.columns.length, c.classNames]).toEqual([569, 31, ['malignant', 'benign']]);
  });

  it.each([
    ['a,b,c\n1,2,3\n4;5;6\n', /t: line 3 has 1 field, expected 3; it contains ';': the file is read with the delimiter ','/],
    ['a,b\n1,2\n3,4,5\n', /t: line 3 has 3 fields, expected 2$/],
    ['a,b\n1,"x\n', /t: line 2: a quoted field is not closed/],
    ['a,b\n"x"y,2\n', /t: line 2: 'y' after a closing quote/],
    ['a,a\n1,2\n', /the header names two columns 'a'/],
    ['', /t: no rows/],
    ['# only a comment\n', /t: no rows/],
    ['x,y\n', /t: no data rows after the header/],
  ])('refuses %j with a DataError naming the line', (text, message) => {
    expect(() => readTable(text, { name: 't' })).toThrow(DataError);
    expect(() => readTable(text, { name: 't' })).toThrow(message);
  });

  it('property: any table written with quotes where needed reads back field for field', () => {
    const field = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }).map((v) => String(v)),
      fc.stringMatching(/^[a-z][a-z ,;"|\n]{0,8}[a-z]$/),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(',', ';', '\t', '|'),
        fc.infiniteStream(field),
        (w, n, d, cells) => {
          const it = cells[Symbol.iterator]();
          const rows = Array.from({ length: n }, () => Array.from({ length: w }, () => it.next().value as string));
          const quote = (s: string): string => (/[",;|\t\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
          const header = Array.from({ length: w }, (_, j) => `col${j}`);
          const text = [header, ...rows].map((r) => r.map(quote).join(d)).join('\n') + '\n';
          const t = readTable(text, { delimiter: d, header: true });
          expect(t.rows).toBe(n);
          rows.forEach((r, i) =>
            r.forEach((s, j) => {
              const v = cell(t, j, i);
              if (typeof v === 'number') expect(v).toBe(Number(s));
              else expect(v).toBe(s);
            }),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
