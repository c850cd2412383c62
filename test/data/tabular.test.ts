import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DataError } from '../../src/errors.js';
import { readTable } from '../../src/data/table.js';
import { encodeTable, tablePreprocessing } from '../../src/data/tabular.js';
import { applyPreprocessing, fitStatistics, modelInputs, parsePreprocessing, targetValues } from '../../src/data/preprocessing.js';
import type { Preprocessing } from '../../src/data/preprocessing.js';
import { subset } from '../../src/data/dataset.js';
import { Tensor } from '../../src/tensor/tensor.js';

const CSV = `size,colour,weight,kind
1.0,red,10,apple
2.0,green,20,pear
3.0,red,30,apple
4.0,blue,40,plum
`;

describe('a table as a data set', () => {
  it('the last column is the target; text features are one-hot, numbers as written', () => {
    const t = readTable(CSV, { name: 'fruit' });
    const p = tablePreprocessing(t);
    expect(p.features).toEqual([
      { name: 'size', type: 'numeric' },
      { name: 'colour', type: 'categorical', categories: ['blue', 'green', 'red'] },
      { name: 'weight', type: 'numeric' },
    ]);
    expect(p.target).toEqual({ name: 'kind', task: 'classify', classes: ['apple', 'pear', 'plum'] });
    const ds = encodeTable(t, p);
    expect(ds.x.shape).toEqual([4, 5]);
    expect(Array.from(ds.x.data.subarray(0, 5))).toEqual([1, 0, 0, 1, 10]);
    expect(Array.from(ds.x.data.subarray(15, 20))).toEqual([4, 1, 0, 0, 40]);
    expect(Array.from(ds.labels!)).toEqual([0, 1, 0, 2]);
    expect(ds.featureNames).toEqual(['size', 'colour=blue', 'colour=green', 'colour=red', 'weight']);
    expect(ds.y.shape).toEqual([4, 3]);
  });

  it('--target names another column; two classes can be one column [N,1] for a model with one output', () => {
    const t = readTable('a,label,b\n1,yes,2\n3,no,4\n5,yes,6\n');
    const p = tablePreprocessing(t, { target: 'label' });
    expect(p.features.map((f) => f.name)).toEqual(['a', 'b']);
    const one = encodeTable(t, p, { binaryAsOneColumn: true });
    expect(one.y.shape).toEqual([3, 1]);
    expect(Array.from(one.y.data)).toEqual([1, 0, 1]);
    expect(encodeTable(t, p).y.shape).toEqual([3, 2]);
  });

  it('infers the task: text or at most 20 distinct integers are classes, other numbers are regressed; --task overrides', () => {
    const few = readTable('x,y\n' + Array.from({ length: 30 }, (_, i) => `${i},${i % 3}`).join('\n'));
    expect(tablePreprocessing(few).target).toMatchObject({ task: 'classify', classes: ['0', '1', '2'] });
    expect(tablePreprocessing(few, { task: 'regress' }).target).toEqual({ name: 'y', task: 'regress' });
    const many = readTable('x,y\n' + Array.from({ length: 30 }, (_, i) => `${i},${i * 7}`).join('\n'));
    expect(tablePreprocessing(many).target?.task).toBe('regress');
    const real = readTable('x,y\n1,0.5\n2,1.5\n3,1.5\n');
    expect(tablePreprocessing(real).target?.task).toBe('regress');
    expect(tablePreprocessing(real, { task: 'classify' }).target).toMatchObject({ classes: ['0.5', '1.5'] });
  });

  it("scikit-learn's class names index the integer codes of the last column", () => {
    const t = readTable('4,1,setosa,versicolor,virginica\n5.1,0\n7.0,1\n6.3,2\n5.0,0\n');
    const p = tablePreprocessing(t);
    expect(p.target).toMatchObject({ task: 'classify', classes: ['setosa', 'versicolor', 'virginica'] });
    expect(Array.from(encodeTable(t, p).labels!)).toEqual([0, 1, 2, 0]);
  });

  it.each([
    ['a,b\n1,x\n,y\n', /t: line 3, column 1 \(a\): an empty field is a missing value, not a finite number; paralens does not impute/],
    ['a,b\n1,x\nNA,y\n', /t: line 3, column 1 \(a\): 'NA' is a missing value/],
    ['a,b\n1,x\ninf,y\n', /t: line 3, column 1 \(a\): 'inf' is not a finite number/],
    ['a,b\n1,x\n2,x\n3,x\n', /t: target column 'b' has one class \('x'\) in all 3 rows; classification needs two or more/],
    ['a,b\n1,x\n2,y\n3,z\n4,w\noops,v\n', /t: line 6, column 1 \(a\): 'oops' is not a finite number \(the column holds numbers in 4 of 5 rows\)/],
    ['a,b\n1,x\n2,\n', /t: line 3, column 2 \(b\): an empty field is a missing value/],
    ['a\n1\n2\n', /t: one column, the target 'a'; there are no features/],
  ])('refuses %j naming the line and column', (text, message) => {
    const t = readTable(text, { name: 't' });
    expect(() => tablePreprocessing(t)).toThrow(DataError);
    expect(() => tablePreprocessing(t)).toThrow(message);
  });

  it('refuses text to regress, and an unknown --target', () => {
    const t = readTable('a,b\n1,x\n2,y\n', { name: 't' });
    expect(() => tablePreprocessing(t, { task: 'regress' })).toThrow(/t: line 2, column 2 \(b\): 'x' cannot be regressed/);
    expect(() => tablePreprocessing(t, { target: 'c' })).toThrow("t: no column 'c'; columns: a, b");
  });

  it('a file for prediction: columns found by name in any order, the target may be missing; unseen categories are refused', () => {
    const p = tablePreprocessing(readTable(CSV, { name: 'fruit' }));
    const later = readTable('weight,kind,colour,size\n40,plum,blue,4\n10,apple,red,1\n', { name: 'new' });
    const ds = encodeTable(later, p);
    expect(Array.from(ds.x.data)).toEqual([4, 1, 0, 0, 40, 1, 0, 0, 1, 10]);
    expect(Array.from(ds.labels!)).toEqual([2, 0]);
    const unlabelled = encodeTable(readTable('size,colour,weight\n2,green,5\n'), p);
    expect(unlabelled.labels).toBeUndefined();
    expect(() => encodeTable(readTable('size,colour,weight\n2,purple,5\n', { name: 'n' }), p)).toThrow(
      /n: line 2, column 2 \(colour\): 'purple' is not one of the 3 categories of training: blue, green, red/,
    );
    expect(() => encodeTable(readTable('size,weight\n2,5\n', { name: 'n' }), p)).toThrow(/n: no column 'colour'; the model takes size, colour, weight/);
    expect(() => encodeTable(readTable('size,colour,weight,kind\n2,red,5,kiwi\n', { name: 'n' }), p)).toThrow(/'kiwi' is not one of the model's classes/);
  });
});

describe('the preprocessing', () => {
  const table = readTable(
    'a,c,y\n' +
      [
        [1, 'u', 10],
        [2, 'v', 20],
        [3, 'u', 30],
        [10, 'v', 100],
      ]
        .map((r) => r.join(','))
        .join('\n'),
    { name: 'p' },
  );
  const raw = encodeTable(table, tablePreprocessing(table, { task: 'regress' }));

  it('fits the standardisation on the training rows only (a test row does not move it)', () => {
    const p = tablePreprocessing(table, { task: 'regress' });
    const train = subset(raw, [0, 1, 2]);
    const fitted = fitStatistics(p, train);
    expect(fitted.input === 'table' && fitted.features[0]).toMatchObject({ name: 'a', type: 'numeric', mean: 2, std: Math.sqrt(2 / 3) });
    expect(fitted.target).toMatchObject({ task: 'regress', mean: [20], std: [Math.sqrt(200 / 3)] });
    // the one-hot inputs stay 0/1; the numeric one is standardised; the target too
    const ds = applyPreprocessing(fitted, raw);
    expect(Array.from(ds.x.data.subarray(0, 3))).toEqual([(1 - 2) / Math.sqrt(2 / 3), 1, 0].map(Math.fround));
    expect(ds.y.data[3]).toBeCloseTo((100 - 20) / Math.sqrt(200 / 3), 5);
    // and back: model outputs in standardised units → the target's units
    expect(targetValues(fitted, Tensor.of([ds.y.data[3]!], [1, 1])).data[0]).toBeCloseTo(100, 4);
  });

  it('property: standardised training columns have mean 0 and std 1 (one-hot columns untouched), and it survives JSON', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: -8000, max: 8000 }).map((v) => v / 8),
            fc.constantFrom('p', 'q'),
          ),
          { minLength: 3, maxLength: 30 },
        ),
        (rows) => {
          fc.pre(new Set(rows.map((r) => r[0])).size > 1 && new Set(rows.map((r) => r[1])).size > 1);
          const t = readTable('v,c,y\n' + rows.map(([v, c], i) => `${v},${c},${i % 2 ? 'a' : 'b'}`).join('\n'));
          const base = tablePreprocessing(t);
          const ds = encodeTable(t, base);
          const fitted = parsePreprocessing(JSON.stringify(fitStatistics(base, ds)));
          const x = modelInputs(fitted, ds.x);
          const n = rows.length,
            col = Array.from({ length: n }, (_, i) => x.data[i * 3]!);
          const mean = col.reduce((a, b) => a + b, 0) / n;
          const sd = Math.sqrt(col.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
          expect(Math.abs(mean)).toBeLessThan(1e-4);
          expect(sd).toBeCloseTo(1, 3);
          for (let i = 0; i < n; i++) expect(x.data[i * 3 + 1]! + x.data[i * 3 + 2]!).toBe(1);
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each([
    ['not json', /preprocessing is not JSON/],
    ['[]', /expected a JSON object/],
    ['{"version":2,"input":"table","features":[]}', /version 2 is not 1/],
    ['{"version":1,"input":"sheet","features":[]}', /input must be "table" or "array"/],
    ['{"version":1,"input":"table","features":[{"name":"a","type":"numeric","std":0}]}', /features\[0\]\.std must be positive/],
    ['{"version":1,"input":"table","features":[{"name":"a","type":"categorical","categories":[1]}]}', /features\[0\]\.categories must be a list of strings/],
    ['{"version":1,"input":"array","scale":1}', /standardize must be true or false/],
    ['{"version":1,"input":"array","scale":1,"standardize":false,"target":{"task":"guess"}}', /target.task must be "classify" or "regress"/],
  ])('refuses a damaged preprocessing %j naming the field', (json, message) => {
    expect(() => parsePreprocessing(json)).toThrow(message);
  });

  it('round-trips through JSON unchanged', () => {
    const p: Preprocessing = { version: 1, input: 'array', scale: 1 / 255, standardize: false, target: { task: 'classify', classes: ['a', 'b'] } };
    expect(parsePreprocessing(JSON.stringify(p))).toEqual(p);
  });
});
