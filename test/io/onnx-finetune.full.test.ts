import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readNpzFile } from '../../src/data/node.js';
import { textCorpus, vocabSize } from '../../src/data/text.js';
import { decodeModel } from '../../src/io/index.js';
import { parseSpec, softmaxCrossEntropy, Tensor } from '../../src/index.js';
import { bitsPerChar } from '../../src/train/text-metrics.js';
import type { Para } from '../../src/para/para.js';
import { cli } from '../cli/helpers.js';
import { describeWith, PYTHON, torchOnnx } from '../peer/available.js';

/**
 * Issue 29, point 4: `train --init` fine-tunes what `paralens import` reads from files
 * torch.onnx.export wrote (finetune_models.py): a CNN on float images already in [0,1]
 * (--scale unit: the inputs PyTorch saw), a transformer block and an LSTM on text, an
 * embedding classifier on token ids (never standardised), and MLPs ending in Softmax and
 * LogSoftmax (trained through the logits before the head). Each lowers the loss from the
 * imported weights.
 */
const dir = mkdtempSync(join(tmpdir(), 'paralens-onnx-finetune-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SCRIPT = fileURLToPath(new URL('./finetune_models.py', import.meta.url));
const at = (f: string): string => join(dir, f);

async function imported(name: string): Promise<string> {
  const saved = at(`${name}.safetensors`);
  const r = await cli('import', at(`${name}.onnx`), '--save', saved, '--json');
  expect(r.code, r.err).toBe(0);
  return saved;
}

/** Inputs and class labels of an .npz as the model reads them (x as stored, y one-hot over 3 classes). */
function npz(name: string, dom: readonly number[]): { x: Tensor; y: Tensor } {
  const a = readNpzFile(at(name));
  const x = a.get('x')!,
    y = a.get('y')!;
  const N = x.shape[0]!;
  const xs = Tensor.zeros([N, ...dom]);
  xs.data.set(x.data);
  const ys = Tensor.zeros([N, 3]);
  for (let i = 0; i < N; i++) ys.data[i * 3 + y.data[i]!] = 1;
  return { x: xs, y: ys };
}

const lossOf = (file: string, d: { x: Tensor; y: Tensor }, logits = (m: Para) => m): number => {
  const f = decodeModel(readFileSync(file));
  return softmaxCrossEntropy.apply(logits(f.model).run(f.theta, d.x), d.y).value;
};

/** A text a small next-character model learns within a few dozen steps. */
const TEXT = 'the quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs. '.repeat(60);

describeWith(torchOnnx(), 'train --init on models torch.onnx.export wrote (issue 29, point 4)', () => {
  beforeAll(() => {
    const r = spawnSync(PYTHON, [SCRIPT, dir], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`finetune_models.py failed: ${r.stderr}`);
    writeFileSync(at('text.txt'), TEXT);
  }, 120_000);

  it('a CNN on float images in [0,1] with --scale unit: inputs as PyTorch saw them, the loss lowered; predict does not divide by 255', async () => {
    const cnn = await imported('cnn');
    const data = npz('img.npz', [1, 8, 8]);
    const before = lossOf(cnn, data);
    const tuned = at('cnn-tuned.safetensors');
    const r = await cli(
      'train',
      '--init',
      cnn,
      '--data',
      at('img.npz'),
      '--scale',
      'unit',
      '--epochs',
      '15',
      '--optimizer',
      'adam',
      '--lr',
      '0.01',
      '--save',
      tuned,
      '--json',
    );
    expect(r.code, r.err).toBe(0);
    expect(r.json().scaling).toBe('none (values as stored)');
    const file = decodeModel(readFileSync(tuned));
    expect(file.preprocessing).toMatchObject({ input: 'array', scale: 1, standardize: false });
    expect(lossOf(tuned, data)).toBeLessThan(before / 2);
    // --scale standard is a different map: its preprocessing standardises
    const s = await cli('train', '--init', cnn, '--data', at('img.npz'), '--scale', 'standard', '--epochs', '1', '--json');
    expect(s.code, s.err).toBe(0);
    expect(s.json().scaling).toMatch(/^standardised/);
    // trained on 8-bit pixels (÷255), then given the float images already in [0,1]: not divided again
    const px = at('cnn-pixels.safetensors');
    expect((await cli('train', '--init', cnn, '--data', at('img8.npz'), '--epochs', '2', '--save', px)).code).toBe(0);
    const p = await cli('predict', '--load', px, '--data', at('img.npz'), '--json');
    expect(p.code, p.err).toBe(0);
    expect(p.json().scaling).toMatch(/already in \[0,1\]: not divided by 255 again/);
    const f = decodeModel(readFileSync(px));
    const direct = f.model.run(f.theta, data.x);
    // predict reads the test rows (the fixed 20 % split); each must be the model on the raw floats
    const outputs = p.json().outputs as number[][];
    const rows = new Set(Array.from({ length: data.x.batch }, (_, i) => direct.data.subarray(i * 3, i * 3 + 3).join(',')));
    for (const o of outputs) expect(rows.has(Float32Array.from(o).join(','))).toBe(true);
    // --scale unit refuses values beyond [0,1] that are not pixels
    const bad = at('wide.npz');
    spawnSync(PYTHON, ['-c', `import numpy as np; np.savez('${bad}', x=np.linspace(-3, 3, 640).reshape(10, 1, 8, 8), y=np.arange(10) % 3)`]);
    const w = await cli('train', '--init', cnn, '--data', bad, '--scale', 'unit', '--epochs', '1');
    expect(w.code).toBe(2);
    expect(w.err).toMatch(/--scale unit .* values from -3 to 3/);
  }, 60_000);

  it('an embedding classifier on token ids: the ids reach it as they are (never standardised); --scale other than none is refused', async () => {
    const m = await imported('text_classifier');
    const data = npz('ids.npz', [7]);
    const before = lossOf(m, data);
    const tuned = at('text-tuned.safetensors');
    const r = await cli('train', '--init', m, '--data', at('ids.npz'), '--epochs', '30', '--optimizer', 'adam', '--lr', '0.05', '--save', tuned, '--json');
    expect(r.code, r.err).toBe(0);
    expect(decodeModel(readFileSync(tuned)).preprocessing).toMatchObject({ scale: 1, standardize: false });
    expect(lossOf(tuned, data)).toBeLessThan(before / 2);
    // the same ids as a CSV: its numeric columns are read as they are, not standardised
    const csv = at('ids.csv');
    const rows = Array.from(
      { length: data.x.batch },
      (_, i) => `${Array.from(data.x.data.subarray(i * 7, i * 7 + 7)).join(',')},${data.y.data.subarray(i * 3, i * 3 + 3).indexOf(1)}`,
    );
    writeFileSync(csv, ['i1,i2,i3,i4,i5,i6,i7,label', ...rows].join('\n') + '\n');
    const c = await cli(
      'train',
      '--init',
      m,
      '--data',
      csv,
      '--epochs',
      '30',
      '--optimizer',
      'adam',
      '--lr',
      '0.05',
      '--save',
      at('text-csv.safetensors'),
      '--json',
    );
    expect(c.code, c.err).toBe(0);
    const features = decodeModel(readFileSync(at('text-csv.safetensors'))).preprocessing;
    expect(features?.input === 'table' && features.features.every((f) => f.type === 'numeric' && f.mean === 0 && f.std === 1)).toBe(true);
    expect(c.json().final_loss).toBeLessThan(before / 2);
    const s = await cli('train', '--init', m, '--data', at('ids.npz'), '--scale', 'standard');
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/reads token ids, which are never scaled/);
  }, 60_000);

  it.each([
    ['mlp_softmax', 'softmax', /probabilities, not logits/],
    ['mlp_log_softmax', 'LogSoftmax', /log-probabilities/],
  ])(
    '%s: a graph ending in %s trains through the logits before it, says so, and keeps the head',
    async (name, head, note) => {
      const m = await imported(name);
      const tuned = at(`${name}-tuned.safetensors`);
      const r = await cli('train', '--init', m, '--data', 'iris', '--epochs', '40', '--optimizer', 'adam', '--lr', '0.02', '--save', tuned, '--json');
      expect(r.code, r.err).toBe(0);
      expect(r.json().notes.join(' ')).toMatch(note);
      const file = decodeModel(readFileSync(tuned));
      expect(String(file.model)).toMatch(new RegExp(`>> ${head}`));
      // the negative log-likelihood of the saved model's outputs: low, as training the logits makes it
      const iris = (await import('../../src/index.js')).builtInData('iris');
      const out = file.model.run(file.theta, iris.x);
      let nll = 0;
      for (let i = 0; i < iris.x.batch; i++) {
        const c = iris.labels![i]!;
        const v = out.data[i * 3 + c]!;
        nll -= head === 'softmax' ? Math.log(v) : v;
      }
      expect(nll / iris.x.batch).toBeLessThan(0.3);
      // a spec-built model ending in softmax is split the same way (the negative control: without the split it stalls near 0.6)
      const plain = await cli(
        'train',
        '--model',
        'dense(4,16) >> tanh >> dense(16,3) >> softmax',
        '--data',
        'iris',
        '--epochs',
        '40',
        '--optimizer',
        'adam',
        '--lr',
        '0.02',
        '--json',
      );
      expect(plain.json().final_loss).toBeLessThan(0.3);
    },
    60_000,
  );

  it.each([
    ['block', /^embedding\(40,16\) >> residual\(graph/],
    ['lstm', /^embedding\(40,16\) >> lstm\(16,24\) >> dense\(24,40\)$/],
  ])(
    '%s: a next-character model trains on text from its imported weights, and the validation loss falls',
    async (name, spec) => {
      const m = await imported(name);
      const file = decodeModel(readFileSync(m));
      expect(String(file.model)).toMatch(spec);
      const tuned = at(`${name}-tuned.safetensors`);
      const args = ['--init', m, '--data', `text:${at('text.txt')}`, '--steps', '60', '--batch', '16', '--optimizer', 'adam', '--lr', '0.01'];
      if (name === 'block') {
        // its Reshapes fix the window at the 16 ids it was exported with (the LSTM reads any length)
        const wrong = await cli('train', ...args);
        expect(wrong.code).toBe(2);
        expect(wrong.err).toMatch(/reads windows of 16 ids, not 64; give --context 16/);
      }
      const r = await cli('train', ...args, '--context', '16', '--save', tuned, '--json');
      expect(r.code, r.err).toBe(0);
      expect(r.json().notes.join(' ')).toMatch(/records no vocabulary/);
      // the imported weights on the same validation text, the same ids
      const corpus = textCorpus('text', TEXT, { minWindow: 16, vocabularySize: 39 });
      expect(vocabSize(corpus.vocabulary)).toBe(40);
      const before = bitsPerChar(parseSpec(String(file.model)), file.theta, corpus.val, 16, 40);
      expect(r.json().val_bits_per_char).toBeLessThan(before - 1);
      // the saved model records the vocabulary, so it trains on again (and eval reads it)
      expect(typeof decodeModel(readFileSync(tuned)).settings.vocabulary).toBe('string');
      const again = await cli('train', '--init', tuned, '--data', `text:${at('text.txt')}`, '--context', '16', '--steps', '2', '--json');
      expect(again.code, again.err).toBe(0);
      expect(again.json().notes).toBeUndefined();
    },
    90_000,
  );
});
