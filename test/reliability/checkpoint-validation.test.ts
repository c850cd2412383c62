// Checkpoints validated like model files (issue 23, "Found" 7): every optimiser slot against its
// parameter, finiteness, a valid RNG state, sane step counters; only finite states become the
// "last good" checkpoint; the wasm kernels check their bounds so no malformed state writes
// outside its array.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bce } from '../../src/nn/loss.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { moons, Tensor, Trainer } from '../../src/index.js';
import { decodeCheckpoint, encodeCheckpoint } from '../../src/train/index.js';
import type { TrainerSnapshot } from '../../src/train/trainer.js';
import { writeCheckpointFile } from '../../src/train/node-checkpoint.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';
import { cli } from '../cli/helpers.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-ck-valid-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const SPEC = 'dense(2,64) >> tanh >> dense(64,1)';
const ARGS = ['train', '--model', SPEC, '--data', 'moons', '--batch', '16', '--optimizer', 'adam', '--lr', '0.01', '--seed', '2', '--json'];
let k = 0;

/** A real checkpoint after 2 epochs (the settings the CLI records), with `edit` applied to its snapshot, in a fresh directory. */
async function doctored(edit: (s: TrainerSnapshot) => void): Promise<string> {
  const dir = join(work, `ck${k++}`);
  const r = await cli(...ARGS, '--epochs', '2', '--checkpoint', dir);
  expect(r.code, r.err).toBe(0);
  const ck = decodeCheckpoint(readFileSync(join(dir, 'checkpoint.safetensors')));
  edit(ck.snapshot);
  // a consistent file (its checksum recomputed): only the state is wrong
  writeCheckpointFile(dir, encodeCheckpoint(parseSpec(ck.spec).at(ck.inputShape!), ck.snapshot, ck.settings));
  return dir;
}

async function resumeRefused(dir: string, message: RegExp): Promise<void> {
  const r = await cli(...ARGS, '--epochs', '4', '--resume', dir);
  expect(r.code, r.err).toBe(2);
  expect(r.err).toMatch(/^paralens: [^\n]+\n$/);
  expect(r.err).toMatch(message);
}

describe('a checkpoint whose state does not fit its model is refused (exit 2)', () => {
  it('an Adam slot of the wrong shape (once written 240 floats past its array by the wasm kernel)', async () => {
    await resumeRefused(
      await doctored((s) => (s.optimizer.slots.m![0] = Tensor.zeros([1]))),
      /optimiser slot 'm' 0 has shape \[1\] but parameter 0 has \[64,2\]/,
    );
  });
  it('a missing slot, or one with too few tensors', async () => {
    await resumeRefused(await doctored((s) => delete s.optimizer.slots.v), /optimiser state has slots m; adam keeps m, v/);
    await resumeRefused(await doctored((s) => s.optimizer.slots.v!.pop()), /optimiser slot 'v' holds 3 tensors; the model has 4 parameters/);
  });
  it('NaN or infinite parameters or moments', async () => {
    await resumeRefused(await doctored((s) => (s.theta[1]!.data[3] = NaN)), /parameter 1 holds NaN at index 3/);
    await resumeRefused(await doctored((s) => (s.optimizer.slots.m![2]!.data[0] = Infinity)), /optimiser slot 'm' 2 holds Infinity at index 0/);
  });
  it('negative second moments, a negative step count, an all-zero RNG state', async () => {
    await resumeRefused(await doctored((s) => (s.optimizer.slots.v![0]!.data[5] = -1)), /Adam's second moment v 0 is negative \(-1 at index 5\)/);
    await resumeRefused(await doctored((s) => (s.optimizer.t = -5)), /optimiser step count must be a non-negative integer, got -5/);
    await resumeRefused(await doctored((s) => (s.rng = [0, 0, 0, 0])), /RNG state is all zero/);
  });
  it('an optimiser step count that disagrees with the steps taken', async () => {
    await resumeRefused(await doctored((s) => (s.optimizer.t = s.step + 7)), /optimiser has taken 27 steps but the run 20/);
  });
});

describe('only finite states become the last good checkpoint', () => {
  it('a diverging run (--lr 1e308) stops with exit 1, and what it leaves can be resumed or started afresh', async () => {
    const dir = join(work, 'ck-diverge');
    const r = await cli('train', '--model', SPEC, '--data', 'moons', '--optimizer', 'sgd', '--lr', '1e308', '--epochs', '5', '--checkpoint', dir, '--json');
    expect(r.code).toBe(1);
    expect(r.json().error.code).toBe('E_NONFINITE');
    let ck;
    try {
      ck = decodeCheckpoint(readFileSync(join(dir, 'checkpoint.safetensors')));
    } catch {
      ck = undefined; // no finite epoch at all: no checkpoint
    }
    if (ck) for (const t of ck.snapshot.theta) expect(t.data.every(Number.isFinite)).toBe(true);
  });
});

describe('the wasm kernels check their bounds at the boundary', () => {
  it('adam with a moment array shorter than its parameter throws and leaves the neighbouring array alone', async () => {
    const be = await createWasmBackend({ name: 'wasm-bounds', threads: 1, minGemmVolume: 0, minElements: 0 });
    const p = be.alloc!(128)!,
      g = be.alloc!(128)!,
      m = be.alloc!(1)!,
      neighbour = be.alloc!(256)!,
      v = be.alloc!(128)!;
    neighbour.fill(7);
    g.fill(1);
    expect(() => be.adam(p, g, m, v, { b1: 0.9, b2: 0.999, step: 0.1, epsHat: 1e-8, l2: 0, shrink: 1 })).toThrow(
      /wasm kernel: an operand holds 1 values where 128 are (read|written)/,
    );
    expect(Array.from(neighbour).every((x) => x === 7)).toBe(true);
    expect(() => be.axpy(1, new Float32Array(200), new Float32Array(100))).toThrow(/wasm kernel/);
    const dx = be.alloc!(4)!;
    expect(() =>
      be.scatterAdd(
        new Float32Array(200),
        Float32Array.from({ length: 200 }, (_, i) => i),
        dx,
      ),
    ).toThrow(/index 4 outside/);
    be.dispose();
  });
});

describe('a trainer restores only a state it can use', () => {
  it('restore refuses a snapshot whose optimiser slots do not fit, and changes nothing', () => {
    const t = new Trainer(parseSpec('dense(2,4) >> tanh >> dense(4,1)'), moons(40, 0.1, 1), { loss: bce, optimizer: 'adam', lr: 0.01, batch: 8, seed: 3 });
    t.runEpoch();
    const s = t.snapshot();
    s.optimizer.slots.m![1] = Tensor.zeros([3]);
    const fresh = new Trainer(parseSpec('dense(2,4) >> tanh >> dense(4,1)'), moons(40, 0.1, 1), { loss: bce, optimizer: 'adam', lr: 0.01, batch: 8, seed: 3 });
    const before = fresh.theta.map((x) => Array.from(x.data));
    expect(() => fresh.restore(s)).toThrow(/optimiser slot 'm' 1 has shape \[3\] but parameter 1 has \[4\]/);
    expect(fresh.theta.map((x) => Array.from(x.data))).toEqual(before);
    expect(fresh.optimizer.t).toBe(0);
  });
});
