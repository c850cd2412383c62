// Checkpoints in-process: resuming gives the uninterrupted bits for every optimiser; a
// damaged checkpoint is always refused with a typed error (or, if the damage is invisible
// whitespace, decodes to the same state); a NaN stop leaves the last good checkpoint.
import fc from 'fast-check';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileFormatError } from '../../src/io/errors.js';
import { bce, mse } from '../../src/nn/loss.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { moons, Trainer, xor } from '../../src/index.js';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/train/index.js';
import { writeCheckpointFile } from '../../src/train/node-checkpoint.js';
import { cli } from '../cli/helpers.js';
import { buildCli } from './build.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-ck-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const NUM_RUNS = Number(process.env.PARALENS_FUZZ_RUNS ?? 1500);

const base = (opt: string, epochs: number): string[] => [
  'train',
  '--model',
  'dense(2,8) >> tanh >> dropout(0.2) >> dense(8,1)',
  '--data',
  'moons',
  '--batch',
  '16',
  '--optimizer',
  opt,
  '--lr',
  '0.02',
  '--seed',
  '5',
  '--epochs',
  String(epochs),
  '--json',
];

describe('checkpoint and resume (in-process CLI)', () => {
  for (const opt of ['sgd', 'momentum', 'nesterov', 'adam', 'adamw', 'natural', 'kfac']) {
    it(`${opt}: 9 epochs, then resume to 23, equals 23 straight — every byte of the model file`, async () => {
      const dir = join(work, `ck-${opt}`),
        straight = join(work, `s-${opt}.safetensors`),
        resumed = join(work, `r-${opt}.safetensors`);
      expect((await cli(...base(opt, 23), '--save', straight)).code).toBe(0);
      const first = await cli(...base(opt, 9), '--checkpoint', dir, '--every', '4');
      expect(first.code, first.err).toBe(0);
      expect(decodeCheckpoint(readFileSync(join(dir, 'checkpoint.safetensors'))).snapshot.epoch).toBe(9); // the last epoch is always written
      const second = await cli(...base(opt, 23), '--resume', dir, '--save', resumed);
      expect(second.code, second.err).toBe(0);
      expect(second.json()).toMatchObject({ epochs: 23, resumed_from: 9, checkpoint: dir, checkpoint_epoch: 23, checkpoints_written: 14 });
      expect(first.json()).toMatchObject({ checkpoint: dir, checkpoint_epoch: 9, checkpoints_written: 3 }); // epochs 4, 8 and the last, 9
      expect(Buffer.compare(readFileSync(resumed), readFileSync(straight))).toBe(0);
    });
  }

  it('refuses to resume with other settings, a missing checkpoint, or fewer epochs than done (exit 2, E_CHECKPOINT)', async () => {
    const dir = join(work, 'ck-refuse');
    expect((await cli(...base('sgd', 6), '--checkpoint', dir)).code).toBe(0);
    const lr = await cli(...base('sgd', 10).map((a) => (a === '0.02' ? '0.03' : a)), '--resume', dir);
    expect(lr.code).toBe(2);
    expect(lr.json().error.code).toBe('E_CHECKPOINT');
    expect(lr.err).toMatch(/lr: 0\.02 in the checkpoint, 0\.03 now/);
    const spec = await cli(...base('sgd', 10).map((a) => (a.startsWith('dense(2,8)') ? 'dense(2,8) >> relu >> dense(8,1)' : a)), '--resume', dir);
    expect(spec.code).toBe(2);
    expect(spec.err).toMatch(/spec: /);
    const none = await cli(...base('sgd', 10), '--resume', join(work, 'nothing-here'));
    expect(none.code).toBe(2);
    expect(none.err).toMatch(/no checkpoint to resume in .*nothing-here/);
    const fewer = await cli(...base('sgd', 3), '--resume', dir);
    expect(fewer.code).toBe(2);
    expect(fewer.err).toMatch(/at epoch 6, beyond --epochs 3/);
    const model = join(work, 'model.safetensors');
    expect((await cli(...base('sgd', 2), '--save', model)).code).toBe(0);
    rmSync(join(work, 'ck-model'), { recursive: true, force: true });
    writeCheckpointFile(join(work, 'ck-model'), readFileSync(model));
    const wrong = await cli(...base('sgd', 10), '--resume', join(work, 'ck-model'));
    expect(wrong.code).toBe(2);
    expect(wrong.json().error.code).toBe('E_FORMAT');
    expect(wrong.err).toMatch(/a model file rather than a checkpoint/);
  });
});

describe('checkpoint and resume of text training (in-process CLI)', () => {
  const text = join(work, 'text.txt');
  writeFileSync(text, 'the quick brown fox jumps over the lazy dog. '.repeat(40));
  const run = (steps: number, ...more: string[]): string[] => [
    'train',
    '--model',
    'embedding(vocab,8) >> transformer(8,2,16,rope) >> dense(8,vocab)',
    '--data',
    `text:${text}`,
    '--context',
    '8',
    '--batch',
    '3',
    '--optimizer',
    'adam',
    '--lr',
    '0.01',
    '--seed',
    '2',
    '--steps',
    String(steps),
    '--json',
    ...more,
  ];

  it('counts --every in steps, always writes the last one, and a resumed finished run saves the same bytes as a straight one', async () => {
    const dir = join(work, 'ck-text'),
      straight = join(work, 'text-s.safetensors'),
      resumed = join(work, 'text-r.safetensors');
    const first = await cli(...run(12, '--checkpoint', dir, '--every', '5', '--save', straight));
    expect(first.code, first.err).toBe(0);
    expect(first.json()).toMatchObject({ steps: 12, checkpoint: dir, checkpoint_step: 12, checkpoints_written: 3 }); // steps 5, 10 and the last, 12
    const ck = decodeCheckpoint(readFileSync(join(dir, 'checkpoint.safetensors')));
    expect(ck.snapshot.step).toBe(12);
    expect(ck.runState).toMatchObject({ sampler: expect.any(Array), tail_bits: expect.any(Number) });
    // nothing left to train: the saved model (with bits_per_char, from the kept loss tail) is the straight run's
    const again = await cli(...run(12, '--resume', dir, '--save', resumed));
    expect(again.code, again.err).toBe(0);
    expect(again.json()).toMatchObject({ resumed_from: 12, checkpoint_step: 12, checkpoints_written: 0 });
    expect(Buffer.compare(readFileSync(resumed), readFileSync(straight))).toBe(0);
  });

  it('refuses to resume with other settings, another text or more steps (exit 2, E_CHECKPOINT)', async () => {
    const dir = join(work, 'ck-text-refuse');
    expect((await cli(...run(6, '--checkpoint', dir))).code).toBe(0);
    const lr = await cli(...run(6, '--resume', dir).map((a) => (a === '0.01' ? '0.02' : a)));
    expect(lr.code).toBe(2);
    expect(lr.json().error.code).toBe('E_CHECKPOINT');
    expect(lr.err).toMatch(/lr: 0\.01 in the checkpoint, 0\.02 now/);
    const steps = await cli(...run(9, '--resume', dir));
    expect(steps.code).toBe(2);
    expect(steps.err).toMatch(/steps: 6 in the checkpoint, 9 now/);
    const saved = readFileSync(text);
    writeFileSync(text, saved.toString().replace('lazy', 'hazy'));
    try {
      const other = await cli(...run(6, '--resume', dir));
      expect(other.code).toBe(2);
      expect(other.err).toMatch(/text: "[0-9a-f]{8}" in the checkpoint, "[0-9a-f]{8}" now/);
    } finally {
      writeFileSync(text, saved);
    }
  });
});

describe('a damaged checkpoint is refused, never half-read', () => {
  const trainer = new Trainer(parseSpec('dense(2,4) >> tanh >> dense(4,1)'), moons(40, 0.1, 1), { loss: bce, optimizer: 'adam', lr: 0.01, batch: 8, seed: 3 });
  trainer.runEpoch();
  trainer.runEpoch();
  const bytes = encodeCheckpoint(trainer.model, trainer.snapshot(), { spec: String(trainer.model), lr: 0.01 });
  const good = decodeCheckpoint(bytes);

  it('round-trips the whole trainer state', () => {
    const s = trainer.snapshot();
    expect(good.snapshot.epoch).toBe(2);
    expect(good.snapshot.step).toBe(10);
    expect(good.snapshot.rng).toEqual(s.rng.map((w) => w >>> 0));
    expect(Array.from(good.snapshot.order)).toEqual(Array.from(s.order));
    expect(good.snapshot.theta.map((t) => Array.from(t.data))).toEqual(s.theta.map((t) => Array.from(t.data)));
    expect(good.snapshot.optimizer.t).toBe(10);
    expect(Object.keys(good.snapshot.optimizer.slots).sort()).toEqual(Object.keys(s.optimizer.slots).sort());
    for (const k of Object.keys(s.optimizer.slots))
      expect(good.snapshot.optimizer.slots[k]!.map((t) => Array.from(t.data))).toEqual(s.optimizer.slots[k]!.map((t) => Array.from(t.data)));
  });

  it('every truncation is a FileFormatError', () => {
    for (let n = 0; n < bytes.length; n++) expect(() => decodeCheckpoint(bytes.subarray(0, n))).toThrow(FileFormatError);
  });

  it('any single changed byte: a FileFormatError, or (whitespace only) the very same state', () => {
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (at, x) => {
        const b = bytes.slice();
        b[at]! ^= x;
        let c;
        try {
          c = decodeCheckpoint(b);
        } catch (e) {
          expect(e).toBeInstanceOf(FileFormatError);
          return;
        }
        expect(c.snapshot.theta.map((t) => Array.from(t.data))).toEqual(good.snapshot.theta.map((t) => Array.from(t.data)));
        expect(c.snapshot.rng).toEqual(good.snapshot.rng);
        expect(c.snapshot.epoch).toBe(good.snapshot.epoch);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('restoring a snapshot of another shape changes nothing and names the mismatch', () => {
    const other = new Trainer(parseSpec('dense(2,5) >> tanh >> dense(5,1)'), moons(40, 0.1, 1), { loss: bce, seed: 3 });
    const before = other.theta.map((t) => Array.from(t.data));
    expect(() => other.restore(good.snapshot)).toThrow(/checkpoint parameter 0 has shape \[4,2\] but .* expects \[5,2\]/);
    expect(other.theta.map((t) => Array.from(t.data))).toEqual(before);
    expect(other.epoch).toBe(0);
  });
});

describe('a NaN stop keeps the last good checkpoint', () => {
  it('the CLI exits 1 naming epoch, step and morphism; the checkpoint holds the last finite epoch', async () => {
    const dir = join(work, 'ck-nan');
    // mse with a learning rate of 3 on XOR diverges after a few epochs (measured: epoch 4).
    const r = await cli(
      'train',
      '--model',
      'dense(2,8) >> tanh >> dense(8,1)',
      '--data',
      'xor',
      '--loss',
      'mse',
      '--lr',
      '3',
      '--batch',
      '1',
      '--epochs',
      '50',
      '--checkpoint',
      dir,
      '--json',
    );
    expect(r.code).toBe(1);
    const err = r.json().error;
    expect(err.code).toBe('E_NONFINITE');
    const m = /at epoch (\d+), step (\d+): the (forward|pullback) of (dense\(\d,\d\)|tanh)/.exec(err.message);
    expect(m, err.message).not.toBeNull();
    const failedEpoch = Number(m![1]);
    expect(failedEpoch).toBeGreaterThan(1);
    expect(readdirSync(dir)).toEqual(['checkpoint.safetensors']);
    const ck = decodeCheckpoint(readFileSync(join(dir, 'checkpoint.safetensors')));
    expect(ck.snapshot.epoch).toBe(failedEpoch - 1);
    for (const t of ck.snapshot.theta) expect(t.data.every(Number.isFinite)).toBe(true);
  });

  it('writeCheckpointFile never leaves a partial file: a failed write keeps the old checkpoint', () => {
    const dir = join(work, 'ck-fail');
    const t = new Trainer(parseSpec('dense(2,1)'), xor(), { loss: mse, seed: 1 });
    t.runEpoch();
    writeCheckpointFile(dir, encodeCheckpoint(t.model, t.snapshot(), {}));
    const before = readFileSync(join(dir, 'checkpoint.safetensors'));
    // A directory where the temporary file should go makes the write fail.
    expect(() => writeCheckpointFile(join(dir, 'checkpoint.safetensors'), before)).toThrow(/cannot write a checkpoint/);
    expect(Buffer.compare(readFileSync(join(dir, 'checkpoint.safetensors')), before)).toBe(0);
    expect(existsSync(join(dir, 'checkpoint.safetensors'))).toBe(true);
  });
});

describe('a checkpoint directory is locked by the run that uses it', () => {
  const deadPid = (): number => Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);

  it('a second run on a directory held by a running process is refused (exit 2, naming the holder); a stale lock is taken over', async () => {
    const dir = join(work, 'ck-lock');
    mkdirSync(dir, { recursive: true });
    // another running process holds it (the test runner's parent: alive, and not this process)
    writeFileSync(join(dir, '.checkpoint.lock'), `${process.ppid}\n`);
    const held = await cli(...base('sgd', 2), '--checkpoint', dir);
    expect(held.code).toBe(2);
    expect(held.json().error.code).toBe('E_CHECKPOINT');
    expect(held.err).toMatch(new RegExp(`in use by process ${process.ppid}`));
    expect(existsSync(join(dir, 'checkpoint.safetensors'))).toBe(false);
    // the holder was killed: its lock is stale, the next run takes it and releases it at its end
    const dead = deadPid();
    writeFileSync(join(dir, '.checkpoint.lock'), `${dead}\n`);
    writeFileSync(join(dir, `.checkpoint.safetensors.${dead}.0badc0de.tmp`), 'partial');
    writeFileSync(join(dir, `.checkpoint.${dead}.probe.tmp`), '');
    const r = await cli(...base('sgd', 2), '--checkpoint', dir);
    expect(r.code, r.err).toBe(0);
    expect(readdirSync(dir)).toEqual(['checkpoint.safetensors']);
  });

  it('two real processes on one directory: the second is refused while the first trains', async () => {
    const built = buildCli('lock');
    const dir = join(work, 'ck-two');
    const first = spawn(process.execPath, [built.main, ...base('sgd', 100000), '--checkpoint', dir, '--every', '1000'], {
      env: { ...process.env, PARALENS_BACKEND: 'js' },
      stdio: 'ignore',
    });
    try {
      for (let i = 0; i < 3000 && !existsSync(join(dir, '.checkpoint.lock')); i++) await new Promise((r) => setTimeout(r, 20));
      expect(existsSync(join(dir, '.checkpoint.lock')), 'the first run took the lock').toBe(true);
      const second = await cli(...base('sgd', 2), '--checkpoint', dir);
      expect(second.code).toBe(2);
      expect(second.err).toMatch(new RegExp(`in use by process ${first.pid}`));
    } finally {
      first.kill('SIGKILL');
      await new Promise((r) => first.on('exit', r));
      built.cleanup();
    }
    // killed, it left its lock: the next run takes it over
    expect(readdirSync(dir)).toContain('.checkpoint.lock');
    expect((await cli(...base('sgd', 2), '--checkpoint', dir)).code).toBe(0);
    expect(readdirSync(dir)).not.toContain('.checkpoint.lock');
  });
});
