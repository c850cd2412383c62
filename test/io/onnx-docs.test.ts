import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ONNX_ROUND_TRIP_EXEMPT } from '../../src/io/index.js';
import { importableOperators, operatorTableMarkdown } from '../../src/io/onnx/table.js';
import { cli } from '../cli/helpers.js';

/**
 * docs/onnx.md's operator table and exempt list are generated from the rules themselves
 * (`PARALENS_UPDATE_DOCS=1` writes them); `paralens import --help` lists the same operators.
 */
const page = join(__dirname, '..', '..', 'docs', 'onnx.md');

function exemptMarkdown(): string {
  return ['| layer | why |', '|---|---|', ...Object.entries(ONNX_ROUND_TRIP_EXEMPT).map(([k, why]) => `| \`${k}\` | ${why} |`)].join('\n');
}

function section(text: string, name: string, body: string | undefined): string {
  const begin = `<!-- ${name}:begin -->`,
    end = `<!-- ${name}:end -->`;
  const i = text.indexOf(begin),
    j = text.indexOf(end);
  if (i < 0 || j < i) throw new Error(`docs/onnx.md has no ${begin} … ${end}`);
  return body === undefined ? text.slice(i + begin.length, j).trim() : `${text.slice(0, i + begin.length)}\n${body}\n${text.slice(j)}`;
}

it('docs/onnx.md lists the operators and the exempt layers as the rules have them', () => {
  let text = readFileSync(page, 'utf8');
  if (process.env.PARALENS_UPDATE_DOCS) {
    text = section(section(text, 'operators', operatorTableMarkdown()), 'exempt', exemptMarkdown());
    writeFileSync(page, text);
  }
  expect(section(text, 'operators', undefined)).toBe(operatorTableMarkdown());
  expect(section(text, 'exempt', undefined)).toBe(exemptMarkdown());
});

it('paralens import --help lists every operator import reads, and those not yet read', async () => {
  const r = await cli('import', '--help');
  expect(r.code).toBe(0);
  for (const op of importableOperators()) expect(r.out).toContain(op);
  expect(r.out).toMatch(/Not yet: Loop, Scan\./);
  expect(r.out).toMatch(/LSTM, GRU and RNN nodes as lstm, gru\s+and rnn/);
});
