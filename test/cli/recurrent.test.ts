import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeCtx, parseSpec, Tensor } from '../../src/index.js';
import { lstmCell } from '../../src/nn/recurrent/index.js';
import { cli } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'paralens-recurrent-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const book = join(dir, 'book.txt');
writeFileSync(book, 'the quick brown fox jumps over the lazy dog. '.repeat(30));

const train = (model: string, ...more: string[]): Promise<Awaited<ReturnType<typeof cli>>> =>
  cli('train', '--model', model, '--data', `text:${book}`, '--context', '8', '--batch', '2', '--steps', '2', '--json', ...more);

/** One line on stderr naming what was wrong, exit 2. */
function refused(r: Awaited<ReturnType<typeof cli>>, pattern: RegExp): void {
  expect(r.code, r.err).toBe(2);
  const line = r.err.trim();
  expect(line.split('\n')).toHaveLength(1);
  expect(line).toMatch(pattern);
}

describe('recurrent models on the command line', () => {
  it('trains an LSTM language model with --bptt and --clip and reports them', async () => {
    const r = await train('embedding(vocab,4) >> lstm(4,6) >> dense(6,vocab)', '--bptt', '3', '--clip', '1', '--optimizer', 'adam');
    expect(r.code, r.err).toBe(0);
    expect(r.json()).toMatchObject({ model: 'embedding(29,4) >> lstm(4,6) >> dense(6,29)', bptt: 3, clip: 1, steps: 2 });
    expect(r.json().val_bits_per_char).toBeGreaterThan(0);
  });

  it('bad input exits 2 with one line naming the value and what was expected', async () => {
    refused(await train('embedding(vocab,4) >> lstm(4,6) >> dense(6,vocab)', '--bptt', '0'), /--bptt must be > 0, got 0/);
    refused(await train('embedding(vocab,4) >> dense(4,vocab)', '--bptt', '4'), /--bptt 4 truncates recurrent layers .* has none/);
    refused(await train('embedding(vocab,4) >> lstm(4,6) >> dense(6,vocab)', '--clip', '-1'), /--clip must be > 0, got -1/);
    refused(await train('embedding(vocab,4) >> lstm(4,0) >> dense(6,vocab)'), /lstm\(in,h\) needs .* positive integer hidden size, got lstm\(4,0\)/);
    // a state size that does not match: the cell reads [S+A] = [12], the layer before gives 10
    refused(await cli('train', '--model', 'dense(4,10) >> unfold(lstm_cell(4,4),3)', '--data', 'xor', '--json'), /expects \[\*,12\] but got \[\*,10\]/);
    refused(await cli('train', '--model', 'scan(dense(7,6),9)', '--data', 'xor', '--json'), /no room for an input and an output/);
    refused(await train('embedding(5,4) >> lstm(4,6) >> dense(6,vocab)'), /token id \d+ at index \d+ is not an integer in 0…4/);
  });
});

describe('recurrent layers refuse bad input before allocating', () => {
  it('initial states of the wrong size', () => {
    const cell = lstmCell(3, 4);
    const x = Tensor.zeros([2, 5, 3]);
    expect(() =>
      cell.run(
        cell.params.map((p) => Tensor.zeros(p.shape)),
        x,
        Tensor.zeros([2, 5]),
        makeCtx(),
      ),
    ).toThrow(/lstm_cell\(3,4\) expects initial states \[2,8\] \(state size 8\) but got \[2,5\]/);
  });

  it('a sequence of length 0', () => {
    expect(() => parseSpec('lstm(3,4)').at([0, 3])).toThrow(/lstm\(3,4\) expects a sequence \[\*,T,3\] with T ≥ 1/);
    expect(() => parseSpec('gru(3,4)').run(parseSpec('gru(3,4)').init(0), Tensor.zeros([2, 0, 3]))).toThrow(/length 0 has no steps/);
  });
  it('T × batch × h past the activation limit is a TooLargeError naming them', () => {
    const f = parseSpec('lstm(4,256)');
    const x = Tensor.zeros([4, 50000, 4]);
    expect(() => f.forward(f.init(0), x, makeCtx())).toThrow(/lstm_cell\(4,256\) on 4 sequences of 50000 steps would keep .* floats of activations/);
  });
});

describe('long sequences through cells that cost more per step are refused before they run', () => {
  it('a cell written as a morphism (its unrolled composite copies T² wires) and an unfold of many steps', () => {
    const f = parseSpec('scan(dense(5,5) >> tanh,2)');
    expect(() => f.forward(f.init(0), Tensor.zeros([8, 20000, 3]), makeCtx())).toThrow(
      /runs as its unrolled composite, whose 20000 steps copy about .* floats/,
    );
    const u = parseSpec('unfold(rnn_cell(0,4),100000000)');
    expect(() => u.forward(u.init(0), Tensor.zeros([4, 4]), makeCtx())).toThrow(/on 4 sequences of 1.00e\+8 steps would keep/);
  });
});
