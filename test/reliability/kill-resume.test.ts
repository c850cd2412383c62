// Checkpoints survive SIGKILL: a real `paralens train` child process is killed at random
// points, resumed each time, and must end with the very bytes of an uninterrupted run. A
// watcher reads the checkpoint file continuously meanwhile: it must always decode.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
const TRAIN = ['train', '--model', 'dense(2,32) >> tanh >> dropout(0.1) >> dense(32,32) >> tanh >> dense(32,1)', '--data', 'moons', '--batch', '4',
  '--optimizer', 'adam', '--lr', '0.005', '--epochs', '120', '--seed', '3', '--json'];

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
    const poll = kill && setInterval(() => {
      if (timer === undefined && kill.when()) timer = setTimeout(() => p.kill('SIGKILL'), kill.delayMs);
    }, 2);
    p.on('exit', (code, signal) => {
      clearInterval(poll);
      clearTimeout(timer);
      resolve({ code, signal, err });
    });
  });
}

describe('checkpoints survive SIGKILL (child processes)', () => {
  it('killed and resumed several times, training ends bit-identical to an uninterrupted run', async () => {
    const ref = join(work, 'ref.safetensors');
    const r0 = await child([...TRAIN, '--save', ref]);
    expect(r0.code, r0.err).toBe(0);

    const dir = join(work, 'ck');
    const ckFile = join(dir, 'checkpoint.safetensors');
    const failures: string[] = [];
    let reads = 0;
    let latest = 0; // the epoch of the checkpoint on disk, as the watcher last saw it
    const watcher = setInterval(() => {
      if (!existsSync(ckFile)) return;
      try {
        latest = decodeCheckpoint(readFileSync(ckFile)).snapshot.epoch;
        reads++;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') failures.push((e as Error).message);
      }
    }, 3);

    const rng = new Rng(20261129);
    const epochs: number[] = [];
    let kills = 0;
    try {
      for (let round = 0; round < 7; round++) {
        const resume = existsSync(ckFile) ? ['--resume', dir] : [];
        // Round 0 dies within 20 ms, before any checkpoint can exist (the next run starts
        // afresh); round 1 at a random instant of start-up or of the first epochs; later
        // rounds once the checkpoint has advanced a random number of epochs, plus 0–25 ms.
        const target = latest + 1 + rng.int(10);
        const started = Date.now(), startupMs = round === 0 ? 20 : 50 + rng.int(250);
        const when = round <= 1 ? () => Date.now() - started >= startupMs : () => latest >= target;
        const r = await child([...TRAIN, '--checkpoint', dir, ...resume], { when, delayMs: rng.int(26) });
        if (r.signal === 'SIGKILL') kills++;
        else expect(r.code, r.err).toBe(0);
        // After every kill: at most the checkpoint, the killed run's lock and a stray temporary
        // file (named with the killed pid: the next run removes it), and the checkpoint decodes.
        for (const f of existsSync(dir) ? readdirSync(dir) : []) expect(f).toMatch(/^(checkpoint\.safetensors|\.checkpoint\.lock|\.checkpoint\.safetensors\.\d+\.[0-9a-f]{8}\.tmp)$/);
        if (existsSync(ckFile)) epochs.push(decodeCheckpoint(readFileSync(ckFile)).snapshot.epoch);
      }
      const out = join(work, 'resumed.safetensors');
      const last = await child([...TRAIN, '--checkpoint', dir, ...(existsSync(ckFile) ? ['--resume', dir] : []), '--save', out]);
      expect(last.code, last.err).toBe(0);
      expect(Buffer.compare(readFileSync(out), readFileSync(ref)), 'resumed model file differs from the uninterrupted one').toBe(0);
      // the last run cleaned what the killed ones left, and released its lock
      expect(readdirSync(dir)).toEqual(['checkpoint.safetensors']);
      expect(decodeCheckpoint(readFileSync(ckFile)).snapshot.epoch).toBe(120);
    } finally {
      clearInterval(watcher);
    }
    if (process.env.PARALENS_TEST_VERBOSE) console.log({ kills, reads, epochs });
    expect(failures).toEqual([]);
    expect(kills).toBeGreaterThanOrEqual(4);
    expect(reads).toBeGreaterThan(0);
    // Progress is never lost beyond the last interval: the checkpoint's epoch never goes back.
    for (let i = 1; i < epochs.length; i++) expect(epochs[i]!).toBeGreaterThanOrEqual(epochs[i - 1]!);
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
