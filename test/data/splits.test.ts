// The splits a training run makes: the source's own test split or a stratified seeded 20 %,
// a validation fraction of what remains, and the preprocessing fitted on the training rows alone.
import { describe, expect, it } from 'vitest';
import { iris, xor } from '../../src/data/index.js';
import { trainingSplits } from '../../src/data/splits.js';
import { readTable } from '../../src/data/table.js';
import { encodeTable, tablePreprocessing } from '../../src/data/tabular.js';
import { DataError } from '../../src/errors.js';

describe('trainingSplits', () => {
  it('holds out a stratified 20 % test split from 20 rows on, none below, and keeps a source’s own', () => {
    const s = trainingSplits({ data: iris() }, { seed: 0 });
    expect([s.train.x.batch, s.test?.x.batch]).toEqual([120, 30]);
    for (let c = 0; c < 3; c++) expect(Array.from(s.test!.labels!).filter((l) => l === c)).toHaveLength(10);
    expect(trainingSplits({ data: xor() }, { seed: 0 }).test).toBeUndefined();
    const own = trainingSplits({ data: iris(), test: xor() }, { seed: 0 });
    expect([own.train.x.batch, own.test?.name]).toEqual([150, xor().name]);
  });

  it('takes the validation rows from the training rows, seeded, and refuses a fraction that empties a side', () => {
    const a = trainingSplits({ data: iris() }, { seed: 3, valFraction: 0.25 });
    const b = trainingSplits({ data: iris() }, { seed: 3, valFraction: 0.25 });
    expect([a.train.x.batch, a.validation?.x.batch, a.test?.x.batch]).toEqual([90, 30, 30]);
    expect(a.validation?.name).toBe('iris/validation');
    expect(Array.from(a.validation!.x.data)).toEqual(Array.from(b.validation!.x.data));
    expect(() => trainingSplits({ data: iris() }, { seed: 0, valFraction: 0.999 })).toThrow(DataError);
  });

  it('standardises every split with the training rows’ statistics only', () => {
    const rows = Array.from({ length: 40 }, (_, i) => `${i},${i % 2 ? 'a' : 'b'}`);
    const table = readTable(['x,label', ...rows].join('\n'), { name: 'line' });
    const p = tablePreprocessing(table);
    const s = trainingSplits({ data: encodeTable(table, p), preprocessing: p }, { seed: 1 });
    const mean = (xs: ArrayLike<number>): number => Array.from(xs).reduce((a, b) => a + b, 0) / xs.length;
    expect(Math.abs(mean(s.train.x.data))).toBeLessThan(1e-6);
    expect(Math.abs(mean(s.test!.x.data))).toBeGreaterThan(1e-3);
    // the fitted mean is the training rows' (their x before standardising is 0…39 less the test rows)
    const feature = s.preprocessing?.input === 'table' ? s.preprocessing.features[0] : undefined;
    expect(feature?.type === 'numeric' ? feature.mean : undefined).not.toBe(19.5);
  });
});
