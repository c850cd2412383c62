// The one backend suite (and the transformer kernels' suite) on WebGPU in headless Chromium
// (SwiftShader's adapter): the suites and the webgpu backend bundled by Vite for the browser
// (webgpu-suite/, with a small stand-in for vitest's describe/it/expect), run in a page, every
// test reported back by name. Without Chromium: skipped with the reason, failing under CI=true.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PreviewServer } from 'vite';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chromium, describeWith } from '../peer/available.js';
import { launch } from './browser.js';

const here = join(__dirname, 'webgpu-suite');

describeWith(chromium(), 'the backend suite on WebGPU in Chromium', () => {
  let server: PreviewServer;
  let browser: Awaited<ReturnType<typeof launch>>;
  beforeAll(async () => {
    const { build, preview } = await import('vite');
    const outDir = mkdtempSync(join(tmpdir(), 'paralens-gpu-suite-'));
    const config = {
      root: here,
      configFile: false as const,
      logLevel: 'error' as const,
      resolve: { alias: { vitest: join(here, 'vitest-shim.ts') } },
      build: { outDir, emptyOutDir: true, target: 'es2022' },
    };
    await build(config);
    server = await preview({ ...config, preview: { port: 0, host: '127.0.0.1' } });
    browser = await launch({ webgpu: true });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("every test of the suite passes on the browser's webgpu backend", async () => {
    const page = await browser.newPage();
    await page.goto(server.resolvedUrls!.local[0]!);
    await page.waitForFunction(() => (window as unknown as { result?: unknown }).result, undefined, { timeout: 600_000, polling: 1000 });
    const r = await page.evaluate(
      () => (window as unknown as { result: { error?: string; adapter?: string; passed: number; failed: { name: string; error: string }[] } }).result,
    );
    expect(r.error).toBeUndefined();
    expect(r.adapter).toMatch(/swiftshader/i);
    expect(r.failed).toEqual([]);
    expect(r.passed).toBeGreaterThan(50);
  }, 700_000);
});
