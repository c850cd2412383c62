// A PyTorch user reads a model trained on a CSV: the ten-line Python block of docs/files.md,
// run as it stands (peers: python3-torch, python3-numpy), on a model whose CSV has numeric
// columns on different scales and a categorical one, must print what `paralens predict` prints.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/rng.js';
import { cli } from '../cli/helpers.js';
import { needs, numpy, PYTHON, pytorch } from '../peer/available.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'paralens-pre-py-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The ```python block of docs/files.md that reads `preprocessing`. */
function docsExample(): string {
  const page = readFileSync(join(root, 'docs', 'files.md'), 'utf8');
  const block = [...page.matchAll(/```python\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes("meta['preprocessing']"));
  if (!block) throw new Error("docs/files.md has no python block reading meta['preprocessing']");
  return block;
}

/** 10 numeric columns on scales from 0.01 to 1000 and one with three categories (13 inputs), three classes. */
function csv(rows: number, seed: number, withClass: boolean): string {
  const rng = new Rng(seed);
  const names = Array.from({ length: 10 }, (_, j) => `m${j}`);
  const lines = [[...names, 'shade', ...(withClass ? ['class'] : [])].join(',')];
  for (let i = 0; i < rows; i++) {
    const v = names.map((_, j) => 10 ** ((j % 6) - 2) * (1 + rng.normal()));
    const shade = ['dark', 'light', 'mid'][rng.int(3)]!;
    const score = v[0]! / 0.01 + v[3]! / 10 + (shade === 'dark' ? 1 : 0);
    lines.push([...v.map((x) => x.toPrecision(6)), shade, ...(withClass ? [score > 3.5 ? 'high' : score > 1.5 ? 'mid' : 'low'] : [])].join(','));
  }
  return lines.join('\n') + '\n';
}

describe('docs/files.md: reading the preprocessing from Python', () => {
  it('the example, run by PyTorch, gives the classes and outputs of paralens predict', async (ctx) => {
    needs(ctx, [pytorch(), numpy()]);
    writeFileSync(join(dir, 'train.csv'), csv(300, 1, true));
    writeFileSync(join(dir, 'new.csv'), csv(5, 2, false));
    const saved = join(dir, 'wine.safetensors'); // the name the example opens
    const t = await cli(
      'train',
      '--model',
      'dense(13,16) >> relu >> dense(16,3)',
      '--data',
      join(dir, 'train.csv'),
      '--epochs',
      '30',
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
    expect(t.code, t.err).toBe(0);
    const p = await cli('predict', '--load', saved, '--csv', join(dir, 'new.csv'), '--json');
    expect(p.code, p.err).toBe(0);
    const py = spawnSync(PYTHON, ['-c', docsExample()], { cwd: dir, encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const m = /^\[(.*)\] \[(.*)\]\s*$/.exec(py.stdout);
    expect(m, py.stdout).not.toBeNull();
    const classes = m![1]!.split(', ').map((s) => s.replace(/^'|'$/g, ''));
    const first = m![2]!.split(', ').map(Number);
    expect(classes).toEqual(p.json().classes);
    first.forEach((v, j) => expect(v).toBeCloseTo(p.json().outputs[0][j], 4));
  });
});
