// Budgeted fuzzing of the expressions the CLI reads (issue 23): model specs, group and
// representation expressions, posets and edge lists, and free text in flags — each case a real
// `paralens` command in a memory-capped child (budget.ts): exit 0, 1 or 2 within 5 s of CPU and
// 1 GiB, one line on error, never E_INTERNAL. Sizes reach past every limit (generators.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeModel } from '../../src/io/model-file.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { fuzzCli } from './budget.js';
import type { Case } from './budget.js';
import { edgesExpr, FUZZ_CASES, FUZZ_SEED, groupExpr, posetExpr, rawText, repExpr, sample, specExpr, textFile } from './generators.js';

const TIMEOUT = 600_000 + 1000 * FUZZ_CASES;

describe('budgeted fuzzing of expressions (child processes)', () => {
  it(
    'model specs: draw and topos site',
    async () => {
      const cases = sample(fc.tuple(specExpr, fc.boolean()), FUZZ_CASES, 1).map(([s, site]): Case => ({
        argv: site ? ['topos', 'site', '--model', s, '--json'] : ['draw', '--model', s, '--json'],
      }));
      const t = await fuzzCli('specs', cases, FUZZ_SEED);
      expect(t.cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'group and representation expressions: derive, end, coend',
    async () => {
      const cmd = fc.tuple(fc.constantFrom('derive', 'end', 'coend', 'coend-hom'), groupExpr, repExpr, repExpr).map(([c, g, a, b]): Case => ({
        argv: c === 'coend-hom' ? ['coend', '--hom', '--group', g, '--json'] : [c, '--group', g, '--in', a, '--out', b, '--json'],
      }));
      const t = await fuzzCli('groups and representations', sample(cmd, FUZZ_CASES, 2), FUZZ_SEED);
      expect(t.cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'posets and edge lists: coend --hom --poset, topos omega, topos site --edges',
    async () => {
      const cmd = fc.oneof(
        posetExpr.map((p): Case => ({ argv: ['coend', '--hom', '--poset', p, '--json'] })),
        posetExpr.map((p): Case => ({ argv: ['topos', 'omega', '--poset', p, '--json'] })),
        edgesExpr.map((e): Case => ({ argv: ['topos', 'site', '--edges', e, '--json'] })),
      );
      const t = await fuzzCli('posets and edge lists', sample(cmd, FUZZ_CASES, 3), FUZZ_SEED);
      expect(t.cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );

  it(
    'text: text data files (train --data text:PATH) and free text in flags (--input rows, --predictions, --input-shape, numbers, unknown flags)',
    async () => {
      const m = parseSpec('dense(2,4) >> tanh >> dense(4,1)');
      const model = encodeModel(m, m.init(1), { classes: ['a', 'b'], loss: 'bce' });
      const number = fc.oneof(fc.double().map(String), fc.constantFrom('1e39', '-3e38', '0x10', '0b11', 'Infinity', 'NaN', '', ' ', '1_0', '١'), rawText);
      const rows = fc
        .array(
          fc.array(number, { maxLength: 3 }).map((r) => r.join(',')),
          { maxLength: 4 },
        )
        .map((r) => r.join(';'));
      const cmd = fc.oneof(
        fc.oneof(rows, rawText).map((t): Case => ({ argv: ['predict', '--load', '{dir}/m.safetensors', '--input', t], files: { 'm.safetensors': model } })),
        fc
          .oneof(
            rows.map((r) => r.split(';').join(' | ')),
            rawText,
          )
          .map((t): Case => ({ argv: ['sheaf', '--predictions', t, '--json'] })),
        fc
          .oneof(
            fc.array(number, { maxLength: 4 }).map((d) => d.join(',')),
            rawText,
          )
          .map((t): Case => ({
            argv: ['export', '--load', '{dir}/m.safetensors', '--onnx', '{dir}/o.onnx', '--input-shape', t],
            files: { 'm.safetensors': model },
          })),
        // values of flags whose size is not work the user asked for (a large --epochs is)
        fc
          .tuple(fc.constantFrom('--lr', '--batch', '--seed', '--every', '--threads', '--nope', '--loss', '--optimizer'), fc.oneof(number, rawText))
          .map(([f, v]): Case => ({ argv: ['train', '--model', 'dense(2,1)', '--data', 'xor', '--epochs', '1', f, v] })),
        fc
          .oneof(rawText, fc.constantFrom('0x10', '-1', '1.5', '1e999', '9'.repeat(30)))
          .map((v): Case => ({ argv: ['train', '--model', 'dense(2,1)', '--data', 'xor', '--epochs', v] })),
        rawText.map((t): Case => ({ argv: [t, '--json'] })),
        // a character-level corpus: any bytes (invalid UTF-8 too), long, or with many distinct characters
        {
          weight: 3,
          arbitrary: textFile.map((t): Case => ({
            argv: [
              'train',
              '--model',
              'embedding(vocab,4) >> dense(4,vocab)',
              '--data',
              'text:{dir}/t.txt',
              '--steps',
              '2',
              '--context',
              '4',
              '--batch',
              '2',
              '--json',
            ],
            files: { 't.txt': t },
          })),
        },
      );
      const t = await fuzzCli('text', sample(cmd, FUZZ_CASES, 4), FUZZ_SEED);
      expect(t.cases).toBe(FUZZ_CASES);
    },
    TIMEOUT,
  );
});
