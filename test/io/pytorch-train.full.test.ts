import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Rng, Tensor } from '../../src/index.js';
import { decodeModel, decodeSafetensors, encodeSafetensors } from '../../src/io/index.js';
import { cli } from '../cli/helpers.js';
import { writeIdx } from './idx-files.js';
import { describeWith, PYTHON, pytorch } from '../peer/available.js';

/**
 * export --format pytorch → python3 DIR/train.py → paralens predict: DistributedDataParallel
 * over 2 processes for one epoch takes the same steps as 1 process with the same global
 * batch (an odd batch size, so the processes' shares differ), and the model file it writes
 * back predicts in paralens what PyTorch predicts. An MLP on moons (the rows paralens
 * trained on, exported into the project) and a CNN on IDX files read by path.
 */
const dir = mkdtempSync(join(tmpdir(), 'paralens-pytorch-train-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function python(args: string[]): string {
  const r = spawnSync(PYTHON, args, { encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`python3 ${args.join(' ')} failed (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((done) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

/** The processes a cluster launcher would start: train.py --launcher env with RANK and WORLD_SIZE set, run side by side. */
async function launched(script: string, world: number, args: string[]): Promise<void> {
  const port = await freePort();
  const runs = Array.from(
    { length: world },
    (_, rank) =>
      new Promise<void>((done, fail) => {
        const env = { ...process.env, RANK: String(rank), WORLD_SIZE: String(world), MASTER_ADDR: '127.0.0.1', MASTER_PORT: String(port) };
        const p = spawn(PYTHON, [script, '--launcher', 'env', ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
        let err = '';
        p.stderr.on('data', (d) => (err += d));
        p.on('close', (code) => (code === 0 ? done() : fail(new Error(`rank ${rank} exited ${code}: ${err}`))));
      }),
  );
  await Promise.all(runs);
}

/** max |a − b| / max |b| over all parameters of two model files. */
function weightDiff(a: string, b: string): number {
  const x = decodeModel(readFileSync(a)),
    y = decodeModel(readFileSync(b));
  let d = 0,
    s = 0;
  x.theta.forEach((t, i) =>
    t.data.forEach((v, j) => {
      d = Math.max(d, Math.abs(v - y.theta[i]!.data[j]!));
      s = Math.max(s, Math.abs(y.theta[i]!.data[j]!));
    }),
  );
  return d / s;
}

/** Trains in paralens for one epoch, exports, continues 1 epoch in PyTorch on 1 and on 2 processes. */
async function roundTrip(
  name: string,
  trainFlags: string[],
  exportFlags: string[] = [],
): Promise<{ project: string; one: string; two: string; initial: string; two_json: any }> {
  const initial = join(dir, `${name}.safetensors`);
  const t = await cli('train', ...trainFlags, '--epochs', '1', '--save', initial, '--json');
  expect(t.code, t.err).toBe(0);
  const project = join(dir, name);
  // export reads only the data its command line names (issue 32): an IDX directory is named again
  const e = await cli('export', '--format', 'pytorch', '--load', initial, '--out', project, ...exportFlags, '--json');
  expect(e.code, e.err).toBe(0);
  const one = join(project, 'one.safetensors'),
    two = join(project, 'two.safetensors');
  python([join(project, 'train.py'), '--epochs', '1', '--processes', '1', '--out', one, '--json']);
  const out = python([join(project, 'train.py'), '--epochs', '1', '--processes', '2', '--out', two, '--json']);
  return { project, one, two, initial, two_json: JSON.parse(out.trim().split('\n').pop()!) };
}

/** paralens predict's outputs on `x` against PyTorch's (model.load(file)) on the same rows. */
async function predictions(project: string, file: string, x: Tensor): Promise<{ ours: number[]; theirs: number[] }> {
  const rows = Array.from({ length: x.batch }, (_, b) => Array.from(x.data.subarray((b * x.size) / x.batch, ((b + 1) * x.size) / x.batch)).join(',')).join(';');
  const p = await cli('predict', '--load', file, '--input', rows, '--json');
  expect(p.code, p.err).toBe(0);
  const inputs = join(project, 'rows.safetensors'),
    outputs = join(project, 'rows-out.safetensors');
  writeFileSync(inputs, encodeSafetensors([{ name: 'x', tensor: x }]));
  python([
    '-c',
    `import sys; sys.path.insert(0, ${JSON.stringify(project)}); import model
t, _ = model.read_safetensors(${JSON.stringify(inputs)}); net = model.load(${JSON.stringify(file)}).eval()
model.write_safetensors(${JSON.stringify(outputs)}, {'y': net(t['x']).detach()})`,
  ]);
  return { ours: (p.json().outputs as number[][]).flat(), theirs: Array.from(decodeSafetensors(readFileSync(outputs)).tensors.get('y')!.data) };
}

const maxRel = (a: readonly number[], b: readonly number[]): number => {
  expect(a).toHaveLength(b.length);
  return Math.max(...a.map((v, i) => Math.abs(v - b[i]!))) / Math.max(...b.map(Math.abs));
};

describeWith(pytorch(), 'train.py: DistributedDataParallel and back to paralens', () => {
  it('MLP on moons: 2 processes × 1 epoch = 1 process with the same global batch, spawned here or by a launcher (env://); predict agrees with PyTorch', async () => {
    const r = await roundTrip('mlp', [
      '--model',
      'dense(2,8) >> tanh >> residual(dense(8,8) >> relu) >> dense(8,1)',
      '--data',
      'moons',
      '--batch',
      '15',
      '--optimizer',
      'momentum',
      '--lr',
      '0.1',
    ]);
    expect(weightDiff(r.one, r.two)).toBeLessThanOrEqual(1e-5);
    expect(weightDiff(r.two, r.initial)).toBeGreaterThan(1e-3); // PyTorch did train
    // the same two processes started as a launcher would (env://) take the same steps
    const env = join(r.project, 'env.safetensors');
    await launched(join(r.project, 'train.py'), 2, ['--epochs', '1', '--out', env]);
    expect(weightDiff(env, r.two)).toBeLessThanOrEqual(1e-6);
    const back = decodeModel(readFileSync(r.two));
    expect(back.settings).toMatchObject({
      data: 'moons',
      loss: 'bce',
      optimizer: 'momentum',
      epochs: 2,
      continued: { in: 'pytorch', processes: 2, epochs: 1 },
    });
    expect(r.two_json.processes).toBe(2);
    const x = Tensor.zeros([6, 2]);
    const rng = new Rng(3);
    for (let i = 0; i < x.size; i++) x.data[i] = rng.normal();
    const { ours, theirs } = await predictions(r.project, r.two, x);
    expect(maxRel(ours, theirs)).toBeLessThanOrEqual(1e-5);
  }, 300_000);

  it('CNN on IDX files read by path: the same, with Adam', async () => {
    const data = join(dir, 'idx');
    mkdirSync(data);
    const rng = new Rng(5);
    writeIdx(data, 90, 'train', rng);
    writeIdx(data, 20, 't10k', rng);
    const r = await roundTrip(
      'cnn',
      [
        '--model',
        'conv2d(1,3,3) >> relu >> maxpool2d(2) >> flatten >> dense(27,10)',
        '--data',
        'fashion-mnist',
        '--data-dir',
        data,
        '--batch',
        '16',
        '--optimizer',
        'adam',
        '--lr',
        '0.01',
      ],
      ['--data', 'fashion-mnist', '--data-dir', data],
    );
    expect(weightDiff(r.one, r.two)).toBeLessThanOrEqual(1e-5);
    expect(weightDiff(r.two, r.initial)).toBeGreaterThan(1e-3);
    expect(r.two_json.test_accuracy).toBeTypeOf('number');
    const x = Tensor.zeros([4, 1, 8, 8]);
    for (let i = 0; i < x.size; i++) x.data[i] = rng.uniform();
    const { ours, theirs } = await predictions(r.project, r.two, x);
    expect(maxRel(ours, theirs)).toBeLessThanOrEqual(1e-5);
  }, 300_000);
});
