// The same command with the same seed gives the same bytes: every byte of the saved model
// file and every reported metric (except the wall-clock `seconds` and `seconds_per_epoch`).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backend, setBackend } from '../../src/tensor/registry.js';
import { needs, wasmBackend } from '../peer/available.js';
import { cli } from '../cli/helpers.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-det-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const RUNS: string[][] = [
  ['--model', 'dense(2,16) >> tanh >> dropout(0.2) >> dense(16,1)', '--data', 'moons', '--batch', '8', '--optimizer', 'adam', '--lr', '0.01', '--epochs', '15'],
  ['--model', 'dense(4,8) >> relu >> dense(8,3)', '--data', 'iris', '--batch', '16', '--optimizer', 'nesterov', '--lr', '0.05', '--epochs', '20'],
  ['--model', 'dense(2,8) >> sigmoid >> dense(8,1)', '--data', 'xor', '--batch', '1', '--optimizer', 'momentum', '--lr', '0.5', '--epochs', '30'],
];

let n = 0;
/** Trains with `args` and `--seed seed`; returns the saved file's bytes and the metrics without `seconds`. */
async function trainOnce(args: string[], seed: number): Promise<{ bytes: Buffer; metrics: Record<string, unknown> }> {
  const file = join(work, `m${n++}.safetensors`);
  const r = await cli('train', ...args, '--seed', String(seed), '--save', file, '--json');
  expect(r.code, r.err).toBe(0);
  const { seconds: _s, seconds_per_epoch: _e, saved: _f, ...metrics } = r.json();
  return { bytes: readFileSync(file), metrics };
}

async function expectDeterministic(): Promise<void> {
  for (const args of RUNS) {
    const a = await trainOnce(args, 11);
    const b = await trainOnce(args, 11);
    expect(Buffer.compare(a.bytes, b.bytes), `${args.join(' ')}: saved files differ`).toBe(0);
    expect(b.metrics).toEqual(a.metrics);
    // …and the seed matters: another seed gives other weights (so the check above has teeth).
    const c = await trainOnce(args, 12);
    expect(Buffer.compare(a.bytes, c.bytes)).not.toBe(0);
  }
}

describe('determinism: same seed, same bytes', () => {
  it('on the reference (js) backend, every byte of the saved model and every metric repeat', async () => {
    expect(backend().name).toBe('js');
    await expectDeterministic();
  });

  it('on the wasm backend too', async (ctx) => {
    const { peer, value: wasm } = await wasmBackend();
    needs(ctx, peer);
    const before = backend();
    setBackend(wasm!);
    try {
      await expectDeterministic();
    } finally {
      setBackend(before);
    }
  });
});
