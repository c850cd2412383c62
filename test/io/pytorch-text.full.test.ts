import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { decodeModel } from '../../src/io/index.js';
import { cli } from '../cli/helpers.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';

/**
 * A transformer language model out to PyTorch and back: trained a few steps in paralens on a
 * text, exported, continued with train.py on 1 and on 2 processes (the same windows, the
 * same steps), and the model file it writes back evaluated by `paralens eval` to PyTorch's
 * validation bits per character.
 */
const dir = mkdtempSync(join(tmpdir(), 'paralens-pytorch-text-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function python(args: string[]): any {
  const r = spawnSync(PYTHON, args, { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`python3 ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

describeWith(pytorch(), 'train.py on text: a transformer to DDP and back', () => {
  it('2 processes take the steps of 1; paralens eval gives the bits per character PyTorch measured', async () => {
    const text = join(dir, 'text.txt');
    const words = ['lens', 'para', 'pull', 'back', 'forward', 'morphism', 'the', 'a', 'of', 'category'];
    let s = '';
    for (let i = 0; s.length < 3000; i++) s += words[(i * 7 + (i >> 2)) % words.length] + (i % 9 === 8 ? '.\n' : ' ');
    writeFileSync(text, s);
    const saved = join(dir, 'lm.safetensors');
    const spec = 'embedding(vocab,16) >> transformer(16,2,32,rope) >> layernorm(16) >> dense(16,vocab)';
    const t = await cli(
      'train',
      '--model',
      spec,
      '--data',
      `text:${text}`,
      '--context',
      '12',
      '--batch',
      '6',
      '--steps',
      '20',
      '--optimizer',
      'adam',
      '--lr',
      '0.01',
      '--save',
      saved,
      '--json',
    );
    expect(t.code, t.err).toBe(0);
    const project = join(dir, 'lm');
    // export reads only the text its command line names (issue 32), encoded with the model's vocabulary
    const e = await cli('export', '--format', 'pytorch', '--load', saved, '--out', project, '--data', `text:${text}`, '--json');
    expect(e.code, e.err).toBe(0);
    expect(e.json().data.kind).toBe('text');
    const one = join(project, 'one.safetensors'),
      two = join(project, 'two.safetensors');
    const r1 = python([join(project, 'train.py'), '--steps', '15', '--processes', '1', '--out', one, '--json']);
    const r2 = python([join(project, 'train.py'), '--steps', '15', '--processes', '2', '--out', two, '--json']);
    const a = decodeModel(readFileSync(one)),
      b = decodeModel(readFileSync(two));
    let d = 0,
      m = 0;
    a.theta.forEach((x, i) =>
      x.data.forEach((v, j) => {
        d = Math.max(d, Math.abs(v - b.theta[i]!.data[j]!));
        m = Math.max(m, Math.abs(v));
      }),
    );
    expect(d / m).toBeLessThanOrEqual(1e-5);
    expect(Math.abs(r1.val_bits_per_char - r2.val_bits_per_char)).toBeLessThanOrEqual(1e-4);
    expect(b.settings).toMatchObject({ data: `text:${text}`, context: 12, steps: 35, continued: { in: 'pytorch', processes: 2, steps: 15 } });
    const ev = await cli('eval', '--load', two, '--data', `text:${text}`, '--json');
    expect(ev.code, ev.err).toBe(0);
    expect(Math.abs(ev.json().val_bits_per_char - r2.val_bits_per_char) / r2.val_bits_per_char).toBeLessThanOrEqual(1e-5);
  }, 300_000);
});
