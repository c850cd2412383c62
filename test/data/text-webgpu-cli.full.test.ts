// `paralens train --backend webgpu --data text:PATH`: the char transformer trains resident on
// the device, step for step along wasm's run (the same windows, the same initialisation), and
// reports the device it ran on; checkpoints are refused there. Without an adapter: skipped with the reason, failing under CI=true.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { describeWith, webgpuBackend } from '../peer/available.js';

const { peer } = await webgpuBackend();
const dir = mkdtempSync(join(tmpdir(), 'paralens-text-webgpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeWith(peer, 'paralens train --backend webgpu --data text:PATH', () => {
  it("the char transformer trains on the device to wasm's bits per character", async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(file, 'a stitch in time saves nine; a rolling stone gathers no moss.\n'.repeat(20));
    const run = async (backend: string) => {
      const c = await cli(
        'train',
        '--model',
        'embedding(vocab,16) >> transformer(16,2,32,rope) >> layernorm(16) >> dense(16,vocab)',
        '--data',
        `text:${file}`,
        '--context',
        '16',
        '--batch',
        '4',
        '--steps',
        '6',
        '--lr',
        '0.01',
        '--optimizer',
        'adam',
        '--backend',
        backend,
        '--json',
      );
      expect(c.code, c.err).toBe(0);
      return JSON.parse(c.out) as { bits_per_char: number; val_bits_per_char: number; steps: number; backend: { name: string; device?: string } };
    };
    const [g, w] = [await run('webgpu'), await run('wasm')];
    expect(g.backend.name).toBe('webgpu');
    expect(g.backend.device).toMatch(/\S/);
    expect(g.steps).toBe(6);
    expect(Math.abs(g.bits_per_char - w.bits_per_char)).toBeLessThan(1e-3 * w.bits_per_char);
    expect(Math.abs(g.val_bits_per_char - w.val_bits_per_char)).toBeLessThan(1e-3 * w.val_bits_per_char);
  }, 300_000);

  it('--checkpoint on the device exits 2 before reading the text', async () => {
    const c = await cli(
      'train',
      '--model',
      'embedding(vocab,8) >> dense(8,vocab)',
      '--data',
      `text:${join(dir, 'absent.txt')}`,
      '--steps',
      '2',
      '--checkpoint',
      join(dir, 'ck'),
      '--backend',
      'webgpu',
    );
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/--checkpoint and --resume need host parameters every epoch; --backend webgpu keeps them on the device/);
  }, 120_000);
});
