import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'paralens-text-cli-'));
const book = join(dir, 'book.txt');
// a small text with structure a model can pick up quickly
writeFileSync(book, Array.from({ length: 300 }, (_, i) => `the cat sat on mat ${i % 7}. `).join(''));
const LM = (pos: string): string => `embedding(vocab,16) >> transformer(16,2,32,${pos}) >> layernorm(16) >> dense(16,vocab)`;
const trainArgs = (pos: string, save: string): string[] => [
  'train',
  '--model',
  LM(pos),
  '--data',
  `text:${book}`,
  '--context',
  '16',
  '--batch',
  '8',
  '--steps',
  '60',
  '--optimizer',
  'adam',
  '--lr',
  '0.01',
  '--save',
  save,
  '--json',
];

describe('paralens train on text, eval and generate', () => {
  const rope = join(dir, 'rope.safetensors'),
    abs = join(dir, 'abs.safetensors');

  it('train --json reports bits per character, validation bits per character and tokens per second; vocab is bound', async () => {
    const r = await cli(...trainArgs('rope', rope));
    expect(r.code, r.err).toBe(0);
    const j = r.json();
    expect(j.model).toMatch(/^embedding\(\d+,16\)/);
    expect(j.vocab_size).toBeGreaterThan(10);
    expect(j.steps).toBe(60);
    // well below log2(V) ≈ 4.3 bits of a uniform guess after 60 steps on this text
    expect(j.bits_per_char).toBeLessThan(3.5);
    expect(j.val_bits_per_char).toBeLessThan(3.5);
    expect(j.tokens_per_second).toBeGreaterThan(0);
    expect(j.saved).toBe(rope);
  });

  it('eval reads the model file alone: the validation bits at the training context, and at a longer one', async () => {
    const train = (await cli('eval', '--load', rope, '--data', `text:${book}`, '--json')).json();
    expect(train.context).toBe(16);
    const again = (await cli(...trainArgs('rope', join(dir, 'again.safetensors')))).json();
    expect(train.val_bits_per_char).toBeCloseTo(again.val_bits_per_char, 5);
    const longer = await cli('eval', '--load', rope, '--data', `text:${book}`, '--context', '48', '--shift', '5', '--json');
    expect(longer.code, longer.err).toBe(0);
    expect(longer.json().context).toBe(48);
    expect(longer.json().shift_defect).toBeLessThan(1e-4); // rope sees relative positions only
  });

  it('an absolute(Tmax) model refuses a longer context with exit 2, naming Tmax; its shift defect is not zero', async () => {
    expect((await cli(...trainArgs('absolute(16)', abs))).code).toBe(0);
    const r = await cli('eval', '--load', abs, '--data', `text:${book}`, '--context', '32', '--json');
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/absolute\(16\)/);
    const s = await cli('eval', '--load', abs, '--data', `text:${book}`, '--context', '8', '--shift', '8', '--json');
    expect(s.code, s.err).toBe(0);
    expect(s.json().shift_defect).toBeGreaterThan(1e-3);
  });

  it('generate: the same seed gives the same text; --json prints {"text": …}', async () => {
    const a = await cli('generate', '--load', rope, '--prompt', 'the ', '--tokens', '40', '--seed', '3', '--json');
    expect(a.code, a.err).toBe(0);
    const b = await cli('generate', '--load', rope, '--prompt', 'the ', '--tokens', '40', '--seed', '3', '--json');
    expect(a.json().text).toHaveLength(40);
    expect(b.json().text).toBe(a.json().text);
    const plain = await cli('generate', '--load', rope, '--prompt', 'the ', '--tokens', '40', '--seed', '3');
    expect(plain.out).toBe(`${a.json().text}\n`);
    const greedy = await cli('generate', '--load', rope, '--prompt', 'the cat', '--tokens', '60', '--temperature', '0', '--json');
    expect(greedy.code).toBe(0);
    expect(greedy.json().unknown).toEqual([]);
    expect(greedy.err).toBe('');
  });

  it('generate names the prompt characters outside the vocabulary (read as the unknown id) on stderr and in --json', async () => {
    // the book has no capital letters and no 'é'
    const r = await cli('generate', '--load', rope, '--prompt', 'The Caté', '--tokens', '5', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().unknown).toEqual(['T', 'C', 'é']);
    expect(r.err).toBe("generate: warning: the prompt has 3 characters outside the model's vocabulary ('T', 'C', 'é'), read as the unknown id\n");
    const one = await cli('generate', '--load', rope, '--prompt', 'the Cat', '--tokens', '5');
    expect(one.err).toMatch(/has a character outside the model's vocabulary \('C'\)/);
  });

  it('draw --load draws the saved model with its vocabulary size; a spec naming vocab takes --vocab N', async () => {
    const saved = await cli('draw', '--load', rope, '--json');
    expect(saved.code, saved.err).toBe(0);
    const [, V, W] = /^embedding\((\d+),16\) >> .* >> dense\(16,(\d+)\)$/.exec(saved.json().model) ?? [];
    expect(Number(V)).toBeGreaterThan(10);
    expect(W).toBe(V);
    const spec = await cli('draw', '--model', LM('rope'), '--vocab', String(V), '--json');
    expect(spec.code, spec.err).toBe(0);
    expect(spec.json().model).toBe(saved.json().model);
    expect(spec.json().svg).toMatch(/^<svg /);
    const without = await cli('draw', '--model', LM('rope'));
    expect(without.code).toBe(2);
    expect(without.err).toMatch(/^paralens: draw: the spec names vocab, .*--vocab N.*--load FILE\n$/);
    expect((await cli('draw', '--model', LM('rope'), '--load', rope)).err).toMatch(/not both/);
  });

  it('bad input is exit 2 with a message naming what was wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['train', '--model', LM('rope'), '--data', `text:${join(dir, 'missing.txt')}`, '--steps', '2'], /missing\.txt/],
      [['train', '--model', LM('rope'), '--data', 'fortunes', '--data-dir', join(dir, 'none'), '--steps', '2'], /fortunes: .*none not found/],
      [['train', '--model', 'embedding(vocab,4) >> dense(4,2)', '--data', 'xor'], /vocab/],
      [['train', '--model', 'embedding(vocab,4) >> dense(4,vocab)', '--data', `text:${book}`, '--steps', '2', '--loss', 'mse'], /token-cross-entropy/],
      [['train', '--model', 'embedding(vocab,4) >> dense(4,7)', '--data', `text:${book}`, '--steps', '2'], /\[\*,64,\d+\]/],
      [['generate', '--load', rope, '--prompt', '', '--tokens', '3'], /prompt/],
      [['eval', '--load', rope, '--data', 'xor'], /text data/],
    ];
    for (const [argv, msg] of cases) {
      const r = await cli(...argv, '--json');
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.json().error.message, argv.join(' ')).toMatch(msg);
    }
    const xorModel = join(dir, 'xor.safetensors');
    expect((await cli('train', '--model', 'dense(2,2) >> tanh >> dense(2,1)', '--data', 'xor', '--epochs', '2', '--save', xorModel)).code).toBe(0);
    const r = await cli('generate', '--load', xorModel, '--prompt', 'a', '--json');
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/not trained on text/);
  });

  it('natural gradient and K-FAC on a transformer: refused at once (exit 2) above their bounded cost, a finite loss below it', async () => {
    const text = ['--data', `text:${book}`, '--optimizer', 'natural', '--lr', '0.001', '--json'];
    // P > 4096: the dense Fisher itself is refused, naming the parameters and the limit
    const big = await cli('train', '--model', 'embedding(vocab,64) >> transformer(64,4,256,rope) >> dense(64,vocab)', ...text, '--steps', '2000');
    expect(big.code).toBe(2);
    expect(big.json().error.message).toMatch(/natural gradient: .* has \d+ parameters, too many for a dense Fisher \(limit 4096\)/);
    // P < 4096 but 8 windows × 16 positions × V outputs: the Fisher's cost is refused, naming its parts
    const wide = await cli('train', '--model', LM('rope'), ...text, '--context', '16', '--batch', '8', '--steps', '2000');
    expect(wide.code).toBe(2);
    expect(wide.json().error.message).toMatch(/exact Fisher .* costs .* \(8 samples × \d+ outputs \[16,\d+\] × \d+² parameters\), above the limit/);
    // small enough: it trains, with the categorical Fisher of every position
    const small = await cli(
      'train',
      '--model',
      'embedding(vocab,4) >> transformer(4,1,8,rope) >> dense(4,vocab)',
      ...text,
      '--context',
      '4',
      '--batch',
      '2',
      '--steps',
      '6',
    );
    expect(small.code, small.err).toBe(0);
    expect(Number.isFinite(small.json().bits_per_char) && Number.isFinite(small.json().val_bits_per_char)).toBe(true);
    // K-FAC's factors are per dense layer (the head, per position here); the rest takes gradient steps
    const kfac = await cli(
      'train',
      '--model',
      LM('rope'),
      '--data',
      `text:${book}`,
      '--context',
      '16',
      '--batch',
      '8',
      '--steps',
      '20',
      '--optimizer',
      'kfac',
      '--lr',
      '0.05',
      '--json',
    );
    expect(kfac.code, kfac.err).toBe(0);
    expect(kfac.json().bits_per_char).toBeLessThan(Math.log2(kfac.json().vocab_size));
    expect(Number.isFinite(kfac.json().val_bits_per_char)).toBe(true);
    // a dense layer whose Kronecker factor would be too big to factorise every step is refused before training
    const wideKfac = await cli('train', '--model', 'dense(2,5000) >> tanh >> dense(5000,1)', '--data', 'xor', '--optimizer', 'kfac', '--epochs', '1', '--json');
    expect(wideKfac.code).toBe(2);
    expect(wideKfac.json().error.message).toMatch(/kfac: dense\(2,5000\) has a 3×3 and a 5000×5000 Kronecker factor, above the limit 4096/);
  });

  it('--steps works for row data sets too', async () => {
    const r = await cli('train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'moons', '--batch', '16', '--steps', '25', '--json');
    expect(r.code, r.err).toBe(0);
    expect(r.json().epochs).toBe(3); // 160 training rows in batches of 16: 10 steps per epoch
  });
});
