// Checkpoints survive SIGKILL: a real `paralens train` child process is killed at random
// points, resumed each time, and must end with the very bytes of an uninterrupted run — on an
// array data set and on text. A watcher reads the checkpoint file continuously meanwhile: it
// must always decode.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/random/rng.js';
import { decodeCheckpoint } from '../../src/train/checkpoint.js';
import { buildCli } from './build.js';

let cli: ReturnType<typeof buildCli>;
let work: string;
beforeAll(() => {
  cli = buildCli('kill');
  work = mkdtempSync(join(tmpdir(), 'paralens-kill-'));
});
afterAll(() => {
  cli?.cleanup();
  if (work) rmSync(work, { recursive: true, force: true });
});

// dropout draws from the RNG every step, Adam carries moments: both must be restored exactly.
const TRAIN = [
  'train',
  '--model',
  'dense(2,32) >> tanh >> dropout(0.1) >> dense(32,32) >> tanh >> dense(32,1)',
  '--data',
  'moons',
  '--batch',
  '4',
  '--optimizer',
  'adam',
  '--lr',
  '0.005',
  '--epochs',
  '120',
  '--seed',
  '3',
  '--json',
];

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  err: string;
}

/**
 * Runs the CLI; with `kill`, polls `kill.when()` and, once it holds, sends SIGKILL after
 * a further `kill.delayMs` — so kills land at random points of an epoch whatever the
 * machine's speed (a fixed wall-clock delay would miss on a fast machine).
 */
function child(args: string[], kill?: { when: () => boolean; delayMs: number }, backend = 'js'): Promise<Exit> {
  return new Promise((resolve) => {
    // 'default': no PARALENS_BACKEND, so the process picks its own (wasm where it loads)
    const env: NodeJS.ProcessEnv = { ...process.env, PARALENS_BACKEND: backend };
    if (backend === 'default') delete env['PARALENS_BACKEND'];
    const p = spawn(process.execPath, [cli.main, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    let timer: NodeJS.Timeout | undefined;
    const poll =
      kill &&
      setInterval(() => {
        if (timer === undefined && kill.when()) timer = setTimeout(() => p.kill('SIGKILL'), kill.delayMs);
      }, 2);
    p.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ code, signal, err });
    });
  });
}

/**
 * Runs `train` (with `--checkpoint`) seven times, killing it with SIGKILL at random points and
 * resuming from what it left, then once more to the end; the model it saves must have the very
 * bytes of `reference`'s uninterrupted run. `progress` reads how far a checkpoint is (epochs,
 * or steps for text), `stride` is how far one checkpoint goes beyond the last, `final` how far
 * the whole run goes. A watcher reads the checkpoint file meanwhile: it must always decode.
 */
async function killAndResume(
  train: string[],
  opts: { tag: string; progress: (ck: ReturnType<typeof decodeCheckpoint>) => number; stride: number; final: number },
): Promise<void> {
  const ref = join(work, `${opts.tag}-ref.safetensors`);
  const r0 = await child([...train, '--save', ref]);
  expect(r0.code, r0.err).toBe(0);

  const dir = join(work, `${opts.tag}-ck`);
  const ckFile = join(dir, 'checkpoint.safetensors');
  const failures: string[] = [];
  let reads = 0;
  let latest = 0; // how far the checkpoint on disk is, as the watcher last saw it
  const watcher = setInterval(() => {
    if (!existsSync(ckFile)) return;
    try {
      latest = opts.progress(decodeCheckpoint(readFileSync(ckFile)));
      reads++;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') failures.push((e as Error).message);
    }
  }, 3);

  const rng = new Rng(20261129);
  const seen: number[] = [];
  let kills = 0;
  try {
    for (let round = 0; round < 7; round++) {
      const resume = existsSync(ckFile) ? ['--resume', dir] : [];
      // Round 0 dies within 20 ms, before any checkpoint can exist (the next run starts
      // afresh); round 1 at a random instant of start-up or of the first checkpoints; later
      // rounds once the checkpoint has advanced a random number of strides, plus 0–25 ms.
      const target = latest + opts.stride * (1 + rng.int(10));
      const started = Date.now(),
        startupMs = round === 0 ? 20 : 50 + rng.int(250);
      const when = round <= 1 ? () => Date.now() - started >= startupMs : () => latest >= target;
      const r = await child([...train, '--checkpoint', dir, ...resume], { when, delayMs: rng.int(26) });
      if (r.signal === 'SIGKILL') kills++;
      else expect(r.code, r.err).toBe(0);
      // After every kill: at most the checkpoint, the killed run's lock and a stray temporary
      // file (named with the killed pid: the next run removes it), and the checkpoint decodes.
      for (const f of existsSync(dir) ? readdirSync(dir) : [])
        expect(f).toMatch(/^(checkpoint\.safetensors|\.checkpoint\.lock|\.checkpoint\.safetensors\.\d+\.[0-9a-f]{8}\.tmp)$/);
      if (existsSync(ckFile)) seen.push(opts.progress(decodeCheckpoint(readFileSync(ckFile))));
    }
    const out = join(work, `${opts.tag}-resumed.safetensors`);
    const last = await child([...train, '--checkpoint', dir, ...(existsSync(ckFile) ? ['--resume', dir] : []), '--save', out]);
    expect(last.code, last.err).toBe(0);
    expect(Buffer.compare(readFileSync(out), readFileSync(ref)), 'resumed model file differs from the uninterrupted one').toBe(0);
    // the last run cleaned what the killed ones left, and released its lock
    expect(readdirSync(dir)).toEqual(['checkpoint.safetensors']);
    expect(opts.progress(decodeCheckpoint(readFileSync(ckFile)))).toBe(opts.final);
  } finally {
    clearInterval(watcher);
  }
  if (process.env.PARALENS_TEST_VERBOSE) console.log({ tag: opts.tag, kills, reads, seen });
  expect(failures).toEqual([]);
  expect(kills).toBeGreaterThanOrEqual(4);
  expect(reads).toBeGreaterThan(0);
  // Progress is never lost beyond the last interval: the checkpoint never goes back.
  for (let i = 1; i < seen.length; i++) expect(seen[i]!).toBeGreaterThanOrEqual(seen[i - 1]!);
}

/** A few thousand characters of seeded pseudo-English for the text run (no package needed). */
function sampleText(): string {
  const words = ['the', 'cat', 'sat', 'on', 'a', 'mat', 'and', 'dog', 'ran', 'far', 'away', 'from', 'home', 'while', 'it', 'rained'];
  const rng = new Rng(17);
  let s = '';
  while (s.length < 6000) s += Array.from({ length: 4 + rng.int(8) }, () => words[rng.int(words.length)]).join(' ') + (rng.int(3) ? '. ' : '.\n');
  return s;
}

describe('checkpoints survive SIGKILL (child processes)', () => {
  it('killed and resumed several times, training ends bit-identical to an uninterrupted run', async () => {
    await killAndResume(TRAIN, { tag: 'moons', progress: (ck) => ck.snapshot.epoch, stride: 1, final: 120 });
  });

  it('text training (a transformer on random windows) killed and resumed ends bit-identical too', async () => {
    const text = join(work, 'sample.txt');
    writeFileSync(text, sampleText());
    // the window sampler's generator and the loss tail live outside the Trainer: both must be kept
    const trainText = [
      'train',
      '--model',
      'embedding(vocab,16) >> transformer(16,2,32,rope) >> layernorm(16) >> dense(16,vocab)',
      '--data',
      `text:${text}`,
      '--context',
      '16',
      '--batch',
      '4',
      '--steps',
      '240',
      '--every',
      '3',
      '--optimizer',
      'adam',
      '--lr',
      '0.01',
      '--seed',
      '3',
      '--json',
    ];
    await killAndResume(trainText, { tag: 'text', progress: (ck) => ck.snapshot.step, stride: 3, final: 240 });
  });

  it('two fresh processes give byte-identical model files, on the reference and on the default backend', async () => {
    for (const backend of ['js', 'default']) {
      const files = [0, 1].map((i) => join(work, `det-${backend}-${i}.safetensors`));
      for (const f of files) {
        const r = await child([...TRAIN.map((a) => (a === '120' ? '10' : a)), '--save', f], undefined, backend);
        expect(r.code, r.err).toBe(0);
      }
      expect(Buffer.compare(readFileSync(files[0]!), readFileSync(files[1]!)), backend).toBe(0);
    }
  });
});
