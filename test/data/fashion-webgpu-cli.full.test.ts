// `paralens train --backend webgpu` on Fashion-MNIST-shaped IDX files (a small set the test
// writes): the MLP and the CNN train resident on the device and match wasm's accuracy; a
// layer without a device path exits 2 naming it. Without an adapter: skipped with the reason,
// failing under CI=true.
import { afterAll, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { describeWith, webgpuBackend } from '../peer/available.js';

const { peer } = await webgpuBackend();
import { removeTinyFashion, writeTinyFashion } from './idx-files.js';

describeWith(peer, 'paralens train --backend webgpu --data fashion-mnist', () => {
  const run = async (backend: string, spec: string, dir: string, ...more: string[]) => {
    const c = await cli('train', '--model', spec, '--data', 'fashion-mnist', '--data-dir', dir, '--backend', backend, '--json', ...more);
    expect(c.code, c.err).toBe(0);
    return JSON.parse(c.out) as { final_loss: number; accuracy: number; test_accuracy: number; backend: { name: string; device?: string; emulated?: boolean } };
  };

  it.each([
    ['dense(784,32) >> relu >> dense(32,10)', ['--epochs', '8', '--batch', '20', '--lr', '0.1']],
    ['conv2d(1,4,3,1,1) >> relu >> maxpool2d(4) >> flatten >> dense(196,10)', ['--epochs', '3', '--batch', '20', '--lr', '0.01', '--optimizer', 'adam']],
  ])(
    "%s trains on the device to wasm's accuracy",
    async (spec, flags) => {
      const dir = writeTinyFashion(60, true);
      const [g, w] = [await run('webgpu', spec, dir, ...flags), await run('wasm', spec, dir, ...flags)];
      expect(g.backend.name).toBe('webgpu');
      expect(g.backend.device).toMatch(/\S/);
      expect(g.test_accuracy).toBe(w.test_accuracy);
      expect(Math.abs(g.final_loss - w.final_loss)).toBeLessThan(1e-3 * Math.max(1, w.final_loss));
    },
    300_000,
  );

  it('a layer without a device path exits 2 with one line naming it', async () => {
    const dir = writeTinyFashion(20, false);
    const c = await cli(
      'train',
      '--model',
      'dense(784,16) >> leaky_relu(0.1) >> dense(16,10)',
      '--data',
      'fashion-mnist',
      '--data-dir',
      dir,
      '--backend',
      'webgpu',
      '--epochs',
      '1',
    );
    expect(c.code).toBe(2);
    expect(
      c.err
        .trim()
        .split('\n')
        .filter((l) => !/XDG|Vulkan|While init|InitializeImpl|^\s*$/.test(l))
        .pop(),
    ).toMatch(/no device path for leaky_relu\(0\.1\)/);
  }, 120_000);
});

afterAll(removeTinyFashion);
