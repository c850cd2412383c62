// What a user of a training command expects: a default loss for the data, validation metrics
// as training goes, per-step progress with samples/s, learning-rate schedules, --quiet.
import { describe, expect, it } from 'vitest';
import { iris, moons, stratifiedSplit, xor } from '../../src/data/index.js';
import type { Dataset } from '../../src/data/index.js';
import { scheduleByName, scheduleNames } from '../../src/optim/schedule.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { train, Trainer } from '../../src/train/index.js';
import type { TrainEvent } from '../../src/train/index.js';
import { cli, cliWith } from '../cli/helpers.js';

describe('train() and the Trainer without a loss', () => {
  it('take the loss that fits the data: bce for one output, softmax cross-entropy for classes, mse for regression', () => {
    expect(new Trainer(parseSpec('dense(2,1)'), xor(), {}).loss.name).toBe('bce');
    expect(new Trainer(parseSpec('dense(4,3)'), iris(), {}).loss.name).toBe('softmax-cross-entropy');
    const reg: Dataset = { name: 'line', x: Tensor.of([0, 1, 2, 3], [4, 1]), y: Tensor.of([1, 3, 5, 7], [4, 1]) };
    expect(new Trainer(parseSpec('dense(1,1)'), reg, {}).loss.name).toBe('mse');
    const r = train(parseSpec('dense(1,1)'), reg, { epochs: 300, lr: 0.05 });
    expect(r.finalLoss).toBeLessThan(1e-3);
  });
});

describe('train() events and validation', () => {
  const data = moons(100, 0.1, 1);
  const { train: tr, test: val } = stratifiedSplit(data, 0.25, 2);

  it('reports every step (rows done in the epoch), and per epoch its own training time', () => {
    const events: TrainEvent[] = [];
    const r = train(parseSpec('dense(2,8) >> tanh >> dense(8,1)'), tr, { epochs: 3, batch: 32, onEvent: (e) => events.push(e) });
    const batches = events.filter((e) => e.type === 'batch');
    const n = tr.x.batch;
    expect(n).toBe(74);
    expect(batches.map((e) => e.type === 'batch' && `${e.epoch}:${e.rows}`)).toEqual([1, 2, 3].flatMap((ep) => [`${ep}:32`, `${ep}:64`, `${ep}:${n}`]));
    expect(events[0]).toMatchObject({ type: 'start', rows: n, startEpoch: 0, epochs: 3 });
    const epochs = events.filter((e) => e.type === 'epoch');
    expect(epochs).toHaveLength(3);
    for (const e of epochs) if (e.type === 'epoch') expect(e.epochSeconds).toBeLessThanOrEqual(e.seconds);
    expect(r.history.map((h) => h.seconds).every((s) => s >= 0)).toBe(true);
  });

  it('evaluates the validation set every evalEvery epochs and after the last, and reports its final metrics', () => {
    const events: TrainEvent[] = [];
    const r = train(parseSpec('dense(2,8) >> tanh >> dense(8,1)'), tr, {
      epochs: 5,
      batch: 16,
      lr: 0.5,
      validation: val,
      evalEvery: 2,
      onEvent: (e) => events.push(e),
    });
    const withVal = events.filter((e) => e.type === 'epoch' && e.validationLoss !== undefined).map((e) => e.type === 'epoch' && e.epoch);
    expect(withVal).toEqual([2, 4, 5]);
    expect(r.history.filter((h) => h.validationLoss !== undefined).map((h) => h.epoch)).toEqual([2, 4, 5]);
    const last = r.history.at(-1)!;
    expect(r.validationLoss).toBe(last.validationLoss);
    expect(r.validationAccuracy).toBe(last.validationAccuracy);
    // and it is the loss on those rows: a trainer in the same state agrees
    expect(r.validationAccuracy).toBeGreaterThan(0.7);
  });
});

describe('learning-rate schedules by name', () => {
  it('constant, cosine, step and warmup over a run of 100 steps', () => {
    expect(scheduleNames()).toEqual(['constant', 'cosine', 'step', 'warmup']);
    const at = (name: string, t: number): number => scheduleByName(name, 100)(t, 1);
    expect([at('constant', 0), at('constant', 99)]).toEqual([1, 1]);
    expect(at('cosine', 0)).toBe(1);
    expect(at('cosine', 50)).toBeCloseTo(0.5, 12);
    expect(at('cosine', 100)).toBe(0);
    expect([at('step', 33), at('step', 34), at('step', 68)].map((v) => Number(v.toPrecision(12)))).toEqual([1, 0.1, 0.01]);
    expect([at('warmup', 0), at('warmup', 4)]).toEqual([0.2, 1]);
    expect(at('warmup', 5 + 95 / 2)).toBeCloseTo(0.5, 2);
    expect(() => scheduleByName('linear', 10)).toThrow(/unknown schedule 'linear'; known: constant, cosine, step, warmup/);
  });
});

describe('paralens train: --schedule, --val-fraction, progress, --quiet', () => {
  const args = ['train', '--model', 'dense(2,8) >> tanh >> dense(8,1)', '--data', 'moons', '--epochs', '20', '--batch', '16', '--lr', '0.5'];

  it('--schedule changes the run (and is reported); an unknown one exits 2 with the choices', async () => {
    const constant = (await cli(...args, '--json')).json();
    const cosine = (await cli(...args, '--schedule', 'cosine', '--json')).json();
    expect(cosine.schedule).toBe('cosine');
    expect(constant.schedule).toBeUndefined();
    expect(cosine.final_loss).not.toBe(constant.final_loss);
    const bad = await cli(...args, '--schedule', 'linear');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--schedule must be one of constant, cosine, step, warmup; got 'linear'/);
  });

  it('--val-fraction holds out rows and reports validation metrics per evaluated epoch: in --json, and as log lines on stderr', async () => {
    const j = (await cli(...args, '--val-fraction', '0.25', '--json')).json();
    expect(j.rows).toEqual({ train: 120, validation: 40, test: 40 });
    expect(j.history.length).toBe(20);
    expect(j.history[19]).toMatchObject({ epoch: 20, val_loss: j.val_loss, val_accuracy: j.val_accuracy });
    const text = await cli(...args, '--val-fraction', '0.25');
    expect(text.code).toBe(0);
    expect(text.err.split('\n').filter((l) => /^epoch \d+\/20 .* val_loss .* val_accuracy/.test(l))).toHaveLength(20);
    expect(text.out).toMatch(/accuracy .* \(validation .*, test .*\)/);
    expect((await cli(...args, '--val-fraction', '0.25', '--quiet')).err).toBe('');
    expect((await cli(...args, '--val-fraction', '1.5')).code).toBe(2);
  });

  it('on a terminal the progress line shows the epochs, samples/s and the loss; --quiet and --json keep stderr empty', async () => {
    const tty = await cliWith({ errIsTTY: true }, ...args);
    expect(tty.code).toBe(0);
    expect(tty.err).toMatch(/train [█░]+ 20\/20 epochs · [\d,]+ samples\/s · loss /);
    expect(tty.out).not.toMatch(/samples\/s/);
    expect((await cliWith({ errIsTTY: true }, ...args, '--quiet')).err).toBe('');
    expect((await cliWith({ errIsTTY: true }, ...args, '--json')).err).toBe('');
  });

  it('--json reports the training time of an epoch alone (seconds_per_epoch), below the whole run', async () => {
    const j = (await cli(...args, '--json')).json();
    expect(j.seconds_per_epoch).toBeGreaterThan(0);
    expect(j.seconds_per_epoch * j.epochs).toBeLessThanOrEqual(j.seconds);
  });
});

describe('commands that take --data support fashion-mnist-sized work with progress', () => {
  it('uncertainty, kmeans and distill draw progress on a terminal', async () => {
    const u = await cliWith({ errIsTTY: true }, 'uncertainty', '--data', 'iris', '--method', 'deterministic', '--epochs', '30');
    expect(u.code).toBe(0);
    expect(u.err).toMatch(/uncertainty [█░]+ 30\/30 deterministic · epoch 30\/30/);
    const k = await cliWith({ errIsTTY: true }, 'kmeans', '--data', 'iris', '--k', '3', '--restarts', '2');
    expect(k.code).toBe(0);
    expect(k.err).toMatch(/kmeans [█░]+ \d\/2 restart \d\/2 · iteration \d+/);
    const d = await cliWith({ errIsTTY: true }, 'distill', '--data', 'iris', '--seeds', '1', '--epochs', '5');
    expect(d.code).toBe(0);
    expect(d.err).toMatch(/distill [█░]+ 20\/20 epochs of 4 models/);
  });
});
