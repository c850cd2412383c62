// The playground's production build in Chromium with a WebGPU adapter (SwiftShader): the
// worker trains on the webgpu backend, resident on the device, and the status line says so;
// a model with a layer that has no device path trains on the host with the reason shown.
// Without Chromium: skipped with the reason, failing under CI=true.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, describeWith } from '../peer/available.js';
import { launch } from './browser.js';

const root = join(__dirname, '..', '..');
describeWith(chromium(), 'the playground on WebGPU in Chromium', () => {
  let server: PreviewServer;
  let url: string;
  let browser: Awaited<ReturnType<typeof launch>>;

  beforeAll(async () => {
    const { build, preview } = await import('vite');
    const outDir = mkdtempSync(join(tmpdir(), 'paralens-web-gpu-'));
    const configFile = join(root, 'web', 'vite.config.ts');
    await build({ configFile, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    server = await preview({ configFile, logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    url = server.resolvedUrls!.local[0]!;
    browser = await launch({ webgpu: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('trains on the GPU: the loss falls, the status line names the webgpu adapter', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(
      `${url}#data=xor&model=${encodeURIComponent('dense(2,8) >> tanh >> dense(8,1)')}&lr=0.5&optimizer=adam&batch=4&epochs=30&seed=1&uncertainty=off`,
    );
    await page.reload();
    await page.click('#train');
    await page.waitForFunction(
      () => document.getElementById('status')!.dataset.done === 'true' || /stopped/.test(document.getElementById('status')!.textContent ?? ''),
      undefined,
      { timeout: 180_000 },
    );
    const status = await page.textContent('#status');
    expect(status).toMatch(/epoch 30\/30/);
    expect(await page.getAttribute('#status', 'data-backend')).toMatch(/^webgpu, .*swiftshader/i);
    expect(await page.getAttribute('#status', 'data-backend-note')).toBeNull();
    expect(Number(await page.getAttribute('#status', 'data-loss'))).toBeLessThan(Number(await page.getAttribute('#status', 'data-first-loss')));
    expect(errors).toEqual([]);

    // dropout computes on host arrays: the run stays on the host, and the status says why
    await page.goto(`${url}#data=moons&epochs=3`);
    await page.reload();
    await page.selectOption('#uncertainty', 'mc-dropout');
    expect(await page.inputValue('#model')).toMatch(/dropout\(0\.1\)/);
    await page.click('#train');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.done === 'true', undefined, { timeout: 120_000 });
    expect(await page.getAttribute('#status', 'data-backend-note')).toMatch(/^on the host: webgpu has no device path for dropout/);
  }, 300_000);
});
