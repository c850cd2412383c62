// Recurrent layers on a WebGPU device: they compute on the host between their kernels (the step
// loop, the gate kernels), so training on the device is refused up front with E_DEVICE naming
// the layer; the decision itself (hostOnlyParts) holds without a device.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSpec } from '../../../src/index.js';
import { hostOnlyParts } from '../../../src/tensor/device-layers.js';
import { cli } from '../../cli/helpers.js';
import { describeWith, webgpuBackend } from '../../peer/available.js';

const { peer } = await webgpuBackend();
const dir = mkdtempSync(join(tmpdir(), 'paralens-recurrent-webgpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('recurrent layers and device backends', () => {
  it('every recurrent layer is a host part of its model, named by its spec', () => {
    expect(hostOnlyParts(parseSpec('embedding(9,4) >> lstm(4,6) >> gru(6,5) >> dense(5,9)'))).toEqual(['lstm(4,6)', 'gru(6,5)']);
    expect(hostOnlyParts(parseSpec('bidirectional(mgu(3,4)) >> fold(rnn_cell(8,2))'))).toEqual(['bidirectional(mgu(3,4))', 'fold(rnn_cell(8,2))']);
  });
});

describeWith(peer, 'paralens train --backend webgpu with a recurrent layer', () => {
  it('exits 2 with E_DEVICE naming the layer, before training', async () => {
    const file = join(dir, 'lines.txt');
    writeFileSync(file, 'a stitch in time saves nine; a rolling stone gathers no moss.\n'.repeat(20));
    const c = await cli(
      'train',
      '--model',
      'embedding(vocab,8) >> lstm(8,8) >> dense(8,vocab)',
      '--data',
      `text:${file}`,
      '--context',
      '8',
      '--batch',
      '2',
      '--steps',
      '2',
      '--backend',
      'webgpu',
      '--json',
    );
    expect(c.code, c.err).toBe(2);
    expect(c.out).toMatch(/"code":"E_DEVICE"/);
    expect(c.out).toMatch(/no device path for lstm\(8,8\)/);
  }, 120_000);
});
