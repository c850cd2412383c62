// Your own data in the CLI: a CSV, NumPy and IDX files through train --save and predict, the
// preprocessing kept in the model file, scikit-learn's bundled CSVs (files no one here wrote),
// and every bad input refused at once with exit 2 and a line that names it.
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stratifiedSplit } from '../../src/data/dataset.js';
import { readTable } from '../../src/data/table.js';
import { encodeTable, tablePreprocessing } from '../../src/data/tabular.js';
import { readSafetensorsHeader } from '../../src/io/safetensors.js';
import { Rng } from '../../src/random/rng.js';
import { removeTinyFashion, writeTinyFashion } from '../data/idx-files.js';
import { f32, i64, npyBytes, zipBytes } from '../data/npy-files.js';
import { needs, SKLEARN_DATA, sklearnData } from '../peer/available.js';
import { cli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'paralens-own-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeTinyFashion();
});
const file = (name: string, text: string | Uint8Array): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};

/** 200 flowers: two numeric columns on very different scales, a colour, and a species that depends on all three. */
function flowers(n: number, seed: number): string {
  const rng = new Rng(seed);
  const rows = ['petal_mm,weight_g,colour,species'];
  for (let i = 0; i < n; i++) {
    const colour = ['red', 'white', 'blue'][rng.int(3)]!;
    const petal = 20 + 10 * rng.normal(),
      weight = 3000 + 800 * rng.normal();
    const score = (petal - 20) / 10 + (weight - 3000) / 800 + (colour === 'blue' ? 1.5 : 0);
    rows.push(`${petal.toFixed(2)},${weight.toFixed(1)},${colour},${score > 0.5 ? 'tall' : 'short'}`);
  }
  return rows.join('\n') + '\n';
}

const SKLEARN = SKLEARN_DATA;

describe('train and predict on a CSV', () => {
  const csv = file('flowers.csv', flowers(200, 1));
  const model = join(dir, 'flowers.safetensors');

  it('trains with the task inferred, standardising on the training rows only, and saves the preprocessing', async () => {
    const r = await cli(
      'train',
      '--model',
      'dense(5,16) >> relu >> dense(16,2)',
      '--data',
      csv,
      '--epochs',
      '60',
      '--batch',
      '16',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--save',
      model,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    const j = r.json();
    expect(j).toMatchObject({ target: 'species', task: 'classify', rows: { train: 160, test: 40 }, loss: 'softmax-cross-entropy' });
    expect(j.test_accuracy).toBeGreaterThan(0.85);
    const meta = readSafetensorsHeader(readFileSync(model)).metadata;
    const pre = JSON.parse(meta.preprocessing!);
    expect(pre.target).toEqual({ name: 'species', task: 'classify', classes: ['short', 'tall'] });
    expect(pre.features.map((f: { name: string; type: string }) => `${f.name}:${f.type}`)).toEqual([
      'petal_mm:numeric',
      'weight_g:numeric',
      'colour:categorical',
    ]);
    expect(pre.features[2].categories).toEqual(['blue', 'red', 'white']);
    // the mean is the training split's (the same seeded split the command makes), not the whole file's
    const t = readTable(flowers(200, 1));
    const ds = encodeTable(t, tablePreprocessing(t));
    const train = stratifiedSplit(ds, 0.2, 0).train;
    const mean = (x: Float32Array | Float64Array, d: number, n: number): number =>
      Array.from({ length: n }, (_, i) => x[i * d]!).reduce((a, b) => a + b, 0) / n;
    expect(pre.features[0].mean).toBeCloseTo(mean(train.x.data, 5, 160), 4);
    expect(Math.abs(pre.features[0].mean - mean(ds.x.data, 5, 200))).toBeGreaterThan(1e-6);
    // the old keys stay
    expect(JSON.parse(meta.training!).classes).toEqual(['short', 'tall']);
    expect(meta.spec).toBe('dense(5,16) >> relu >> dense(16,2)');
  });

  it('predict applies the same transformation to raw rows: columns by name, in any order, with or without the target', async () => {
    const fresh = flowers(50, 2).split('\n').filter(Boolean);
    const reordered = file(
      'new.csv',
      [
        'colour,species,weight_g,petal_mm',
        ...fresh.slice(1).map((l) => {
          const [p, w, c, s] = l.split(',');
          return `${c},${s},${w},${p}`;
        }),
      ].join('\n'),
    );
    const r = await cli('predict', '--load', model, '--csv', reordered, '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().accuracy).toBeGreaterThan(0.85);
    const unlabelled = file('unlabelled.csv', ['petal_mm,weight_g,colour', ...fresh.slice(1, 4).map((l) => l.split(',').slice(0, 3).join(','))].join('\n'));
    const u = await cli('predict', '--load', model, '--csv', unlabelled, '--json');
    expect(u.code, u.err).toBe(0);
    expect(u.json().rows).toBe(3);
    expect(u.json().accuracy).toBeUndefined();
    expect(u.json().classes.every((c: string) => c === 'tall' || c === 'short')).toBe(true);
    // an extreme flower, far on the 'tall' side in every column, in raw units
    const sure = await cli('predict', '--load', model, '--csv', file('sure.csv', 'petal_mm,weight_g,colour\n60,7000,blue\n0,1000,red\n'), '--json');
    expect(sure.json().classes).toEqual(['tall', 'short']);
  });

  it('predict refuses a category the model never saw, and a file without a column it needs', async () => {
    const r = await cli('predict', '--load', model, '--csv', file('bad.csv', 'petal_mm,weight_g,colour\n20,3000,green\n'));
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/line 2, column 3 \(colour\): 'green' is not one of the 3 categories of training: blue, red, white/);
    const m = await cli('predict', '--load', model, '--csv', file('missing-col.csv', 'petal_mm,colour\n20,red\n'));
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/no column 'weight_g'/);
    const inline = await cli('predict', '--load', model, '--input', '20,3000');
    expect(inline.code).toBe(2);
    expect(inline.err).toMatch(/categorical column 'colour'; give the rows in a CSV file/);
  });

  it('a regression target comes back in its own units', async () => {
    const rng = new Rng(5);
    const rows = ['a,b,price'];
    for (let i = 0; i < 300; i++) {
      const a = 100 * rng.uniform(),
        b = 10 * rng.uniform();
      rows.push(`${a.toFixed(3)},${b.toFixed(3)},${(1000 + 3 * a - 20 * b).toFixed(3)}`);
    }
    const reg = file('prices.csv', rows.join('\n'));
    const saved = join(dir, 'prices.safetensors');
    const r = await cli(
      'train',
      '--model',
      'dense(2,1)',
      '--data',
      reg,
      '--epochs',
      '200',
      '--batch',
      '32',
      '--lr',
      '0.05',
      '--optimizer',
      'adam',
      '--save',
      saved,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json()).toMatchObject({ task: 'regress', target: 'price', loss: 'mse' });
    const p = await cli('predict', '--load', saved, '--csv', file('q.csv', 'a,b\n50,5\n10,1\n'), '--json');
    expect(p.code, p.err).toBe(0);
    const [[y1], [y2]] = p.json().predictions;
    expect(y1).toBeCloseTo(1000 + 150 - 100, 0);
    expect(y2).toBeCloseTo(1000 + 30 - 20, 0);
    const inline = await cli('predict', '--load', saved, '--input', '50,5', '--json');
    expect(inline.json().predictions[0][0]).toBeCloseTo(y1, 4);
    const withTarget = await cli('predict', '--load', saved, '--csv', reg, '--json');
    expect(withTarget.json().rmse).toBeLessThan(0.5);
  });

  it.each([
    ['missing.csv', 'a,b,y\n1,2,x\n3,,z\n', /missing\.csv: line 3, column 2 \(b\): an empty field is a missing value/],
    ['na.csv', 'a,b,y\n1,2,x\nNA,3,z\n', /na\.csv: line 3, column 1 \(a\): 'NA' is a missing value/],
    ['ragged.csv', 'a,b,y\n1,2,x\n3,4\n', /ragged\.csv: line 3 has 2 fields, expected 3/],
    ['semicolon.csv', 'a,b,y\n1,2,x\n3;4;z\n5,6,w\n', /semicolon\.csv: line 3 has 1 field, expected 3; it contains ';'/],
    ['one-class.csv', 'a,b,y\n1,2,x\n3,4,x\n', /one-class\.csv: target column 'y' has one class \('x'\) in all 2 rows/],
    ['inf.csv', 'a,b,y\n1,2,x\n3,-inf,z\n', /inf\.csv: line 3, column 2 \(b\): '-inf' is not a finite number/],
  ])('exits 2 at once on %s, naming the row and column', async (name, text, message) => {
    const r = await cli('train', '--model', 'dense(2,2)', '--data', file(name, text), '--json');
    expect(r.code).toBe(2);
    expect(r.json().error.code).toBe('E_DATA');
    expect(r.err).toMatch(message);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });

  it('refuses files larger than it reads before reading them (sparse files: nothing is written to disk)', async () => {
    const big = join(dir, 'big.csv'),
      huge = join(dir, 'huge.npy');
    writeFileSync(big, '');
    truncateSync(big, 257 * 2 ** 20);
    writeFileSync(huge, '');
    truncateSync(huge, 2 ** 31);
    const a = await cli('train', '--model', 'dense(2,1)', '--data', big);
    expect([a.code, a.err]).toEqual([2, expect.stringMatching(/big\.csv: 257 MiB, more than the 256 MiB paralens reads from such a file/)]);
    // a .npy is read by its header first: 2 GiB of zeros are no .npy, found from their first bytes
    const b = await cli('train', '--model', 'dense(2,1)', '--data', huge);
    expect([b.code, b.err]).toEqual([2, expect.stringMatching(/huge\.npy: not a \.npy file/)]);
  });

  it('exits 2 on an unknown --target, on text to regress, and on a file that is not there', async () => {
    const csv2 = file('two.csv', 'a,b,y\n1,2,x\n3,4,z\n');
    expect((await cli('train', '--model', 'dense(1,2)', '--data', csv2, '--target', 'label')).err).toMatch(/no column 'label'; columns: a, b, y/);
    expect((await cli('train', '--model', 'dense(2,1)', '--data', csv2, '--task', 'regress')).err).toMatch(/'x' cannot be regressed/);
    expect((await cli('train', '--model', 'dense(2,1)', '--data', csv2, '--task', 'guess')).err).toMatch(/--task must be one of classify, regress/);
    const gone = await cli('train', '--model', 'dense(2,1)', '--data', join(dir, 'nope.csv'));
    expect([gone.code, gone.err]).toEqual([2, expect.stringMatching(/cannot read .*nope\.csv: no such file \(ENOENT\)/)]);
    const odd = await cli('train', '--model', 'dense(2,1)', '--data', 'data.xlsx');
    expect(odd.err).toMatch(/unknown data set 'data\.xlsx'; known: .*PATH\.csv, PATH\.npy, PATH\.npz, idx:DIR/);
  });
});

describe("scikit-learn's bundled CSV files (python3-sklearn): files no one here wrote", () => {
  const skipUnless = (ctx: { skip: (n?: string) => void }): void => needs(ctx, sklearnData());

  it('wine_data.csv (its first line is "178,13,class_0,class_1,class_2"): train, save, predict the raw file', async (ctx) => {
    skipUnless(ctx);
    const saved = join(dir, 'wine.safetensors');
    const r = await cli(
      'train',
      '--model',
      'dense(13,16) >> relu >> dense(16,3)',
      '--data',
      `${SKLEARN}/wine_data.csv`,
      '--epochs',
      '100',
      '--batch',
      '16',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--val-fraction',
      '0.2',
      '--save',
      saved,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json()).toMatchObject({ task: 'classify', rows: { train: 114, validation: 28, test: 36 } });
    expect(r.json().test_accuracy).toBeGreaterThan(0.9);
    const p = await cli('predict', '--load', saved, '--csv', `${SKLEARN}/wine_data.csv`, '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().rows).toBe(178);
    expect(p.json().accuracy).toBeGreaterThan(0.9);
    expect(new Set(p.json().classes)).toEqual(new Set(['class_0', 'class_1', 'class_2']));
  });

  it('breast_cancer.csv: two classes as one logit (bce) for a model with one output', async (ctx) => {
    skipUnless(ctx);
    const r = await cli(
      'train',
      '--model',
      'dense(30,8) >> relu >> dense(8,1)',
      '--data',
      `${SKLEARN}/breast_cancer.csv`,
      '--epochs',
      '40',
      '--batch',
      '32',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json()).toMatchObject({ loss: 'bce', task: 'classify' });
    expect(r.json().test_accuracy).toBeGreaterThan(0.9);
  });

  it('boston_house_prices.csv (a count line, then a quoted header): regression of MEDV', async (ctx) => {
    skipUnless(ctx);
    const saved = join(dir, 'boston.safetensors');
    const r = await cli(
      'train',
      '--model',
      'dense(13,32) >> relu >> dense(32,1)',
      '--data',
      `${SKLEARN}/boston_house_prices.csv`,
      '--epochs',
      '150',
      '--batch',
      '32',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--save',
      saved,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json()).toMatchObject({ task: 'regress', target: 'MEDV', loss: 'mse' });
    const p = await cli('predict', '--load', saved, '--csv', `${SKLEARN}/boston_house_prices.csv`, '--json');
    // MEDV is in $1000s with a standard deviation of about 9.2: the model is far better than the mean
    expect(p.json().rmse).toBeLessThan(5);
  });

  it('iris.csv through k-means: the count line names the classes, used for purity only', async (ctx) => {
    skipUnless(ctx);
    const r = await cli('kmeans', '--data', `${SKLEARN}/iris.csv`, '--k', '3', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().features).toBe(4);
    expect(r.json().purity).toBeGreaterThan(0.85);
  });
});

describe('NumPy and IDX files', () => {
  /** XOR-like points in 2-d with integer labels, as arrays. */
  const n = 64,
    rng = new Rng(3);
  const xs: number[] = [],
    ys: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = rng.uniform() * 2 - 1,
      b = rng.uniform() * 2 - 1;
    xs.push(a * 100, b * 100);
    ys.push(a * b > 0 ? 1 : 0);
  }

  it('an .npz with x and y (deflated): train, save, predict the same file', async () => {
    const npz = file(
      'q.npz',
      zipBytes([
        { name: 'x.npy', data: npyBytes('<f4', [n, 2], f32(xs)), deflate: true },
        { name: 'y.npy', data: npyBytes('<i8', [n], i64(ys)), deflate: true },
      ]),
    );
    const saved = join(dir, 'q.safetensors');
    const r = await cli(
      'train',
      '--model',
      'dense(2,16) >> tanh >> dense(16,2)',
      '--data',
      npz,
      '--epochs',
      '300',
      '--batch',
      '16',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--save',
      saved,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json().task).toBe('classify');
    const pre = JSON.parse(readSafetensorsHeader(readFileSync(saved)).metadata.preprocessing!);
    expect(pre).toMatchObject({ input: 'array', scale: 1, standardize: true, target: { task: 'classify', classes: ['0', '1'] } });
    expect(pre.mean).toHaveLength(2);
    const p = await cli('predict', '--load', saved, '--data', npz, '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().accuracy).toBeGreaterThan(0.85);
  });

  it('x.npy with --target y.npy; a missing y is refused for training', async () => {
    const x = file('x.npy', npyBytes('<f4', [n, 2], f32(xs))),
      y = file('y.npy', npyBytes('<i8', [n], i64(ys)));
    const r = await cli('train', '--model', 'dense(2,8) >> tanh >> dense(8,1)', '--data', x, '--target', y, '--epochs', '5', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().loss).toBe('bce');
    const noY = await cli('train', '--model', 'dense(2,1)', '--data', x, '--epochs', '5');
    expect([noY.code, noY.err]).toEqual([2, expect.stringMatching(/x\.npy has no target to learn; give --target Y\.npy, or an \.npz with arrays x and y/)]);
    const noX = await cli('train', '--model', 'dense(2,1)', '--data', file('only-y.npz', zipBytes([{ name: 'y.npy', data: npyBytes('<i8', [n], i64(ys)) }])));
    expect(noX.err).toMatch(/no array named x \(features\); it holds y/);
  });

  it('idx:DIR with train-/t10k- image and label files; predict --data idx:DIR predicts the test split', async () => {
    const d = writeTinyFashion(60, true);
    const saved = join(dir, 'idx.safetensors');
    const r = await cli(
      'train',
      '--model',
      'dense(784,32) >> relu >> dense(32,10)',
      '--data',
      `idx:${d}`,
      '--epochs',
      '5',
      '--batch',
      '16',
      '--lr',
      '0.01',
      '--optimizer',
      'adam',
      '--save',
      saved,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json().rows).toEqual({ train: 60, test: 60 });
    const pre = JSON.parse(readSafetensorsHeader(readFileSync(saved)).metadata.preprocessing!);
    expect(pre).toMatchObject({ input: 'array', scale: 1 / 255, standardize: false });
    const p = await cli('predict', '--load', saved, '--data', `idx:${d}`, '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().rows).toBe(60);
    expect(p.json().accuracy).toBeCloseTo(r.json().test_accuracy, 6);
    const empty = mkdtempSync(join(dir, 'empty-'));
    expect((await cli('train', '--model', 'dense(784,10)', '--data', `idx:${empty}`)).err).toMatch(/no image\/label pairs; expected X-images-idx3-ubyte/);
  });
});

describe('the other commands that take --data read the same files', () => {
  const csv = file('f2.csv', flowers(120, 4));

  it('kmeans: a text last column is the labels (purity), the other text column one-hot', async () => {
    const r = await cli('kmeans', '--data', csv, '--k', '2', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().features).toBe(5);
    expect(r.json().purity).toBeGreaterThan(0.5);
  });

  it('uncertainty, sheaf and distill train on it', async () => {
    const u = await cli('uncertainty', '--data', csv, '--method', 'deterministic', '--epochs', '20', '--json');
    expect(u.code, u.err).toBe(0);
    expect(u.json().accuracy).toBeGreaterThan(0.7);
    const s = await cli('sheaf', '--data', csv, '--experts', '3', '--splits', '1', '--epochs', '10', '--json');
    expect(s.code, s.err).toBe(0);
    const d = await cli('distill', '--data', csv, '--seeds', '1', '--epochs', '10', '--json');
    expect(d.code, d.err).toBe(0);
  });
});
