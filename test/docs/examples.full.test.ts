import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { expectedOf, lineAgrees, maskTimings, newest, outputAgrees, parseExamples, rewrite, runBlocks, shown } from './examples.js';

/**
 * Every `$ paralens …` example in README.md and docs/*.md is run, and its output compared to
 * the page (docs/docs-tests.md says how). `npm run docs` (PARALENS_UPDATE_DOCS=1) writes what
 * the commands print into the pages instead, for the examples that no longer agree.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const update = Boolean(process.env.PARALENS_UPDATE_DOCS);

describe('the comparison of documented and actual output', () => {
  it('masks timings, compares decimals to 1%, integers and words exactly; … stands for omitted lines (negative controls)', () => {
    expect(maskTimings('epochs      40 (0.0862 s)')).toBe('epochs      40 (⏱)');
    expect(maskTimings('{"a":1,"seconds":0.1794,"train_seconds":3}')).toBe('{"a":1,"seconds":⏱,"train_seconds":⏱}');
    expect(maskTimings('12,345 samples/s, 3 ms per step')).toBe('12,⏱/s, ⏱ per step');
    expect(lineAgrees('time        0.539 s', 'time        2.1 s')).toBe(true);
    expect(lineAgrees('seconds           12.437', 'seconds           20.0542')).toBe(true);
    expect(lineAgrees('epochs            3', 'epochs            4')).toBe(false);
    expect(lineAgrees('out / in    46.1', 'out / in    17.5')).toBe(false);
    expect(lineAgrees('std in      0.002346  (mean)', 'std in      0.002350  (mean)')).toBe(true);
    expect(lineAgrees('std in      0.002346  (mean)', 'std in      0.002400  (mean)')).toBe(false);
    expect(lineAgrees('final loss  0.1187', 'final loss  0.1188')).toBe(true);
    expect(lineAgrees('max |onnx − paralens| = 9.54e-6', 'max |onnx − paralens| = 1.14e-5')).toBe(true); // float rounding
    expect(lineAgrees('final loss  2.706e-4', 'final loss  3.1e-4')).toBe(false);
    expect(lineAgrees('parameters  65', 'parameters  66')).toBe(false);
    expect(lineAgrees('model dense(2,16)', 'model dense(2,17)')).toBe(false);
    expect(lineAgrees('paralens: bad flag', 'paralens: bad flags')).toBe(false);
    expect(lineAgrees('{"data":"moons",…', '{"data":"moons","method":"bayes"}')).toBe(true);
    expect(lineAgrees('{"data":"iris",…', '{"data":"moons","method":"bayes"}')).toBe(false);
    expect(outputAgrees(['a', '…', 'z 1'], ['a', 'b', 'c', 'z 1'])).toBe(true);
    expect(outputAgrees(['a', '…', 'z 1'], ['a', 'b', 'c', 'z 2'])).toBe(false);
    expect(outputAgrees(['a', 'b'], ['a', 'b', 'c'])).toBe(false);
    // a table's timing column is masked, its other columns are not
    const t = (acc: string, secs: string) => ['model  acc   seconds', '-----  ----  -------', `mlp    ${acc}  ${secs}`];
    expect(outputAgrees(t('0.91', '1.24'), t('0.91', '0.52'))).toBe(true);
    expect(outputAgrees(t('0.91', '1.24'), t('0.75', '1.24'))).toBe(false);
  });

  it('reads commands, continuation lines, outputs and directives from a page', () => {
    const md = ['text', '<!-- doc-test: setup echo 1,2 > t.csv -->', '```', '$ paralens a \\', '    --b 1', 'out 1', '$ echo x', 'x', '```', '<!-- doc-test: skip needs a GPU -->', '```', '$ nvidia-smi', '```'].join('\n');
    const blocks = parseExamples(md);
    expect(blocks.map((b) => [b.setup, b.skip, b.examples.map((e) => [e.command, e.expected])])).toEqual([
      [['echo 1,2 > t.csv'], undefined, [['paralens a  --b 1', ['out 1']], ['echo x', ['x']]]],
      [[], 'needs a GPU', [['nvidia-smi', []]]],
    ]);
    expect(rewrite(md, blocks, [['out 2'], ['x']]).split('\n').slice(3, 8)).toEqual(['$ paralens a \\', '    --b 1', 'out 2', '$ echo x', 'x']);
  });
});

describe('the docs\' examples print what the docs say', () => {
  const main = join(root, 'dist', 'src', 'cli', 'main.js');
  for (const page of pages) {
    const md = readFileSync(join(root, page), 'utf8');
    const blocks = parseExamples(md);
    if (!blocks.some((b) => !b.skip)) continue;
    it(`${page}: every example agrees with its command`, () => {
      expect(existsSync(main), 'the docs run the built CLI: npm run build first').toBe(true);
      expect(newest(join(root, 'dist', 'src'), '.js') >= newest(join(root, 'src'), '.ts') - 1000, 'dist/ is older than src/: npm run build first').toBe(true);
      // README's examples run where its Quick start sends the reader: the clone's scratch folder try/
      if (page === 'README.md') expect(md).toContain('mkdir -p try && cd try');
      const outputs = runBlocks(blocks, root, 540_000, page === 'README.md' ? 'try' : undefined);
      if (update) {
        writeFileSync(join(root, page), rewrite(md, blocks, outputs));
        return;
      }
      const wrong: string[] = [];
      let k = 0;
      for (const b of blocks) {
        if (b.skip) continue;
        for (const ex of b.examples) {
          const got = outputs[k++]!;
          if (!outputAgrees(expectedOf(b, ex), got)) wrong.push(`${page}:${ex.outputLines[0]}: ${shown(ex)}\n--- documented\n${ex.expected.join('\n')}\n+++ printed\n${got.join('\n')}`);
        }
      }
      expect(wrong.join('\n\n'), `${wrong.length} example(s) disagree; npm run docs writes the printed output into the page`).toBe('');
    }, 600_000);
  }
});
