// One training run for rows and text (src/train/run*.ts): the settings a run is made of, what a
// checkpoint must match to resume it, and what its model file records.
import { describe, expect, it } from 'vitest';
import { xor, iris } from '../../src/data/index.js';
import { textCorpus } from '../../src/data/text.js';
import { RangeArgError } from '../../src/errors.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { namedSchedule, trainOptions } from '../../src/train/run.js';
import type { RunSettings } from '../../src/train/run.js';
import { rowsRun } from '../../src/train/run-rows.js';
import { DEFAULT_TEXT_BATCH, textFingerprint, textRun } from '../../src/train/run-text.js';

const settings: RunSettings = { epochs: 5, batch: 0, lr: 0.5, optimizer: 'sgd', schedule: 'constant', seed: 1 };
const TEXT = 'the quick brown fox jumps over the lazy dog. '.repeat(20);

describe('trainOptions: a run’s settings as train() takes them', () => {
  it('names the loss or takes the one that fits the data; a schedule spans the run’s steps', () => {
    expect(trainOptions(settings, xor()).loss?.name).toBe('bce');
    expect(trainOptions({ ...settings, loss: 'mse' }, xor()).loss?.name).toBe('mse');
    expect(trainOptions(settings, xor()).optimizerOptions).toBeUndefined();
    const s = trainOptions({ ...settings, schedule: 'cosine', batch: 2 }, xor()).optimizerOptions?.schedule;
    // 5 epochs of 2 steps: the rate reaches 0 at step 10
    expect(s?.(0, 1)).toBe(1);
    expect(s?.(10, 1)).toBeCloseTo(0, 12);
    expect([namedSchedule(settings), namedSchedule({ ...settings, schedule: undefined }), namedSchedule({ ...settings, schedule: 'warmup' })]).toEqual([
      undefined,
      undefined,
      'warmup',
    ]);
  });
});

describe('a run on rows', () => {
  it('records its settings once: the checkpoint identity leaves out what may change on resume, the model file keeps all', async () => {
    const model = parseSpec('dense(4,8) >> relu >> dense(8,3)');
    const run = rowsRun(model, { data: iris() }, { ...settings, valFraction: 0.2, schedule: 'cosine' });
    expect(run.identity).toEqual({
      spec: String(model),
      rows: 96,
      data: 'iris',
      loss: 'softmax-cross-entropy',
      optimizer: 'sgd',
      batch: 0,
      lr: 0.5,
      seed: 1,
      schedule: 'cosine',
      val_fraction: 0.2,
    });
    // --epochs may grow on resume: the identity is the same for a longer run
    expect(rowsRun(model, { data: iris() }, { ...settings, valFraction: 0.2, schedule: 'cosine', epochs: 50 }).identity).toEqual(run.identity);
    expect(run.length).toEqual({ unit: 'epoch', every: 1, epochs: 5, steps: undefined });
    const o = await run.train({});
    if (o.kind !== 'rows') throw new Error('a run on rows');
    expect(Object.keys(o.fileSettings)).toEqual([
      'data',
      'loss',
      'optimizer',
      'epochs',
      'batch',
      'lr',
      'seed',
      'schedule',
      'val_fraction',
      'final_loss',
      'accuracy',
      'validation_accuracy',
      'test_accuracy',
      'classes',
      'feature_names',
      'data_dir',
      'init',
    ]);
    expect(o.fileSettings).toMatchObject({ epochs: 5, final_loss: o.result.finalLoss, classes: iris().classes });
    expect([o.splits.train.x.batch, o.splits.validation?.x.batch, o.splits.test?.x.batch]).toEqual([96, 24, 30]);
  });
});

describe('a run on text', () => {
  const corpus = textCorpus('fox', TEXT, { minWindow: 8 });

  it('binds vocab in the spec, counts an epoch in windows, and checkpoints by steps', () => {
    const run = textRun('embedding(vocab,8) >> dense(8,vocab)', corpus, { ...settings, context: 8, epochs: 2 });
    const V = corpus.vocabulary.length + 1;
    expect(String(run.model)).toBe(`embedding(${V},8) >> dense(8,${V})`);
    const steps = 2 * Math.ceil(corpus.train.length / (DEFAULT_TEXT_BATCH * 8));
    expect(run.length).toEqual({ unit: 'step', every: 100, epochs: 2, steps });
    expect(run.identity).toMatchObject({ text: textFingerprint(corpus), steps, batch: DEFAULT_TEXT_BATCH, context: 8, loss: 'token-cross-entropy' });
    expect(textFingerprint(textCorpus('fox', TEXT.replace('lazy', 'hazy'), { minWindow: 8 }))).not.toBe(textFingerprint(corpus));
  });

  it('trains and records what its model file needs to be read again: the vocabulary and the context', async () => {
    const o = await textRun('embedding(vocab,8) >> dense(8,vocab)', corpus, { ...settings, context: 8, steps: 3, batch: 4 }).train({});
    if (o.kind !== 'text') throw new Error('a run on text');
    expect(o.result.steps).toBe(3);
    expect(o.fileSettings).toMatchObject({ steps: 3, batch: 4, context: 8, vocabulary: corpus.vocabulary.join('') });
    expect(Number.isFinite(o.result.valBitsPerChar)).toBe(true);
  });

  it('refuses settings that do not apply to text', () => {
    expect(() => textRun('dense(8,vocab)', corpus, { ...settings, context: 8, loss: 'mse' })).toThrow(RangeArgError);
    expect(() => textRun('dense(8,vocab)', corpus, { ...settings, context: 8, valFraction: 0.1 })).toThrow(RangeArgError);
    expect(() => textRun('dense(8,vocab)', corpus, settings)).toThrow(/needs a context/);
  });
});
