import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ParalensError, parseSpec } from '../../src/index.js';
import { parseCsv } from '../../src/data/index.js';
import { cli } from '../cli/helpers.js';
import { cleanly, NUM_RUNS } from './cleanly.js';

const tokens = [
  'dense',
  'sigmoid',
  'relu',
  'tanh',
  'softmax',
  'copy',
  'add',
  'id',
  'discard',
  'residual',
  'leaky_relu',
  'gelu',
  '(',
  ')',
  ',',
  '>>',
  '@',
  '2',
  '3',
  '4',
  '0',
  '-1',
  '1.5',
  '1e9',
  ' ',
  'x',
  '$',
  '>',
  '@@',
];

describe('fuzzing: every input gives a result or a clean typed error', () => {
  it('model spec parser on random token soups and mutated valid specs', () => {
    const soup = fc.array(fc.constantFrom(...tokens), { maxLength: 25 }).map((t) => t.join(''));
    const valid = [
      'dense(2,4) >> sigmoid >> dense(4,1) >> sigmoid',
      'residual(dense(3,3) >> tanh) @ copy(2)',
      'copy(3) >> (dense(3,2) @ dense(3,2)) >> add(2)',
    ];
    const mutated = fc
      .tuple(fc.constantFrom(...valid), fc.nat(60), fc.nat(60), fc.string({ maxLength: 3 }))
      .map(([s, i, j, ins]) => s.slice(0, i % (s.length + 1)) + ins + s.slice(j % (s.length + 1)));
    fc.assert(
      fc.property(fc.oneof(soup, mutated, fc.string({ maxLength: 40 })), (src) => void cleanly(() => parseSpec(src))),
      { numRuns: NUM_RUNS },
    );
  });

  it('huge sizes are refused without allocating', () => {
    expect(() => parseSpec('dense(2,1e9) >> dense(1e9,1)')).toThrow(/parameter weight of shape \[1000000000,2\] has more than 134217728 elements/);
    expect(() => parseSpec('dense(100000,100000)')).toThrow(ParalensError);
  });

  it('CSV parser on random text', () => {
    const cell = fc.oneof(fc.float({ noNaN: false }).map(String), fc.constantFrom('', 'a', 'Iris-setosa', ' ', 'NaN', '1e400'));
    const csv = fc
      .array(
        fc.array(cell, { minLength: 0, maxLength: 5 }).map((r) => r.join(',')),
        { maxLength: 8 },
      )
      .map((rows) => rows.join('\n'));
    fc.assert(
      fc.property(fc.oneof(csv, fc.string({ maxLength: 60 })), (text) => void cleanly(() => parseCsv(text, { name: 'fuzz' }))),
      { numRuns: NUM_RUNS },
    );
  });

  it('CLI argument handling: exit 0 or 2, never a crash', async () => {
    const flag = fc.constantFrom(
      '--model',
      '--data',
      '--epochs',
      '--lr',
      '--batch',
      '--seed',
      '--loss',
      '--optimizer',
      '--json',
      '--help',
      '--nope',
      '--epochs=3',
      '--lr=-1',
    );
    const value = fc.constantFrom('xor', 'iris', 'dense(2,1)', 'dense(2,1) >> sigmoid', '3', '-2', '0', 'abc', '', '1e400', 'mse', 'adam');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(flag, value), { maxLength: 8 }), async (args) => {
        const r = await cli('train', ...args, '--epochs', '1');
        expect([0, 1, 2]).toContain(r.code);
        if (r.code !== 0) expect(r.err).toMatch(/^paralens: /);
        expect(r.err).not.toMatch(/\n\s+at /);
      }),
      { numRuns: Math.min(NUM_RUNS, 300) },
    );
  });
});
