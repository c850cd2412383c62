import { describe, expect, it } from 'vitest';
import { iris, ShapeError, DataError, xor } from '../../src/index.js';
import { distill } from '../../src/api/natural.js';
import { cli } from '../cli/helpers.js';
import { fashionMnist, itWith } from '../peer/available.js';

describe('paralens distill', () => {
  it('--json prints one object with the three students, the teacher and verdicts', async () => {
    const r = await cli('distill', '--data', 'iris', '--seeds', '2', '--epochs', '30', '--json');
    expect(r.code).toBe(0);
    expect(r.out.trim().split('\n')).toHaveLength(1);
    const j = JSON.parse(r.out);
    expect(j.runs).toHaveLength(2);
    for (const k of ['teacher', 'alone', 'distilled', 'hinted']) {
      expect(j.summary[k].mean).toBeGreaterThan(0.5);
      expect(j.summary[k].mean).toBeLessThanOrEqual(1);
    }
    expect(j.verdicts.map((v: { variant: string }) => v.variant)).toEqual(['distilled', 'hinted']);
    expect(j.eta).toBe('adapter(4,64)');
    expect(j.last).toBeUndefined();
    expect(r.out.length).toBeLessThan(5000);
  });
  it('--limit trains on a seeded subset of the training rows', async () => {
    const j = JSON.parse((await cli('distill', '--data', 'iris', '--seeds', '1', '--epochs', '5', '--limit', '30', '--json')).out);
    expect(j.split).toMatch(/30 training \/ 30 held-out rows/);
  });
  itWith(fashionMnist(), 'fashion-mnist: its own test split, a seeded subset of training rows', async () => {
    const r = await cli(
      'distill',
      '--data',
      'fashion-mnist',
      '--seeds',
      '1',
      '--epochs',
      '2',
      '--limit',
      '300',
      '--test-limit',
      '200',
      '--batch',
      '64',
      '--student',
      'dense(784,8) >> relu >> dense(8,10)',
      '--teacher',
      'dense(784,16) >> relu >> dense(16,10)',
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.split).toBe('its own test split, 300 training / 200 held-out rows');
    expect(j.summary.teacher.mean).toBeGreaterThan(0.3); // far above chance (0.1) after two epochs on 300 images
  });
  it('prints a table in text mode', async () => {
    const r = await cli('distill', '--data', 'moons', '--seeds', '2', '--epochs', '20');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/\(b\) student, Hinton KD/);
    expect(r.out).toMatch(/KD \+ hint vs alone/);
  });
  it('bad input exits 2 with one line naming what was wrong', async () => {
    for (const [args, msg] of [
      [['--temperature', '0'], /--temperature must be > 0/],
      [['--temperature', '-1'], /--temperature must be > 0/],
      [['--alpha', '1.5'], /--alpha must be in \[0, 1\]/],
      [['--alpha', '-0.1'], /--alpha must be in \[0, 1\]/],
      [['--student', 'dense(4,4) >> relu >> dense(4,2)'], /teacher .* outputs \[\*,3\] but the student .* outputs \[\*,2\]/],
      [['--eta', 'adapter(3,64)'], /adapter\(3,64\) maps \[\*,3\] → \[\*,64\] but the features need \[\*,4\] → \[\*,64\]/],
      [['--student', 'dense(4,3)'], /has no hidden layer/],
    ] as [string[], RegExp][]) {
      const r = await cli('distill', '--data', 'iris', '--seeds', '1', '--epochs', '1', ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err).toMatch(msg);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    expect((await cli('distill')).code).toBe(2);
  });
});

describe('distill()', () => {
  it('is reproducible: the same seeds give the same accuracies', () => {
    const a = distill(iris(), { seeds: 2, epochs: 20 }),
      b = distill(iris(), { seeds: 2, epochs: 20 });
    expect(a.runs).toEqual(b.runs);
  });
  it('typed errors for mismatched models and unlabelled data', () => {
    expect(() => distill(iris(), { teacher: 'dense(4,8) >> relu >> dense(8,2)', seeds: 1, epochs: 1 })).toThrow(ShapeError);
    expect(() => distill({ ...xor(), labels: undefined }, { seeds: 1 })).toThrow(DataError);
    expect(() => distill(iris(), { temperature: 0 })).toThrow(/temperature must be > 0/);
    expect(() => distill(iris(), { alpha: 2 })).toThrow(/alpha must be in \[0, 1\]/);
  });
});
