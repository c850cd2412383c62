import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PreviewServer } from 'vite';
import { chromium, describeWith, PYTHON, torchOnnx } from '../peer/available.js';
import { launch, screenshotPath } from './browser.js';

/**
 * Issue 29, point 7: the playground opens an .onnx file that torch.onnx.export wrote, draws it as
 * a string diagram, and fine-tunes it from its weights — on a built-in data set and on an
 * uploaded CSV — in its worker, end to end in Chromium.
 */
const root = join(__dirname, '..', '..');
const files = mkdtempSync(join(tmpdir(), 'paralens-web-onnx-'));
afterAll(() => rmSync(files, { recursive: true, force: true }));

describeWith([chromium(), torchOnnx()], 'the playground opens an ONNX model and fine-tunes it (Chromium)', () => {
  let server: PreviewServer;
  let url: string;
  let browser: Awaited<ReturnType<typeof launch>>;

  beforeAll(async () => {
    const r = spawnSync(PYTHON, [join(root, 'test', 'io', 'finetune_models.py'), files], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`finetune_models.py failed: ${r.stderr}`);
    const { build, preview } = await import('vite');
    const outDir = mkdtempSync(join(tmpdir(), 'paralens-web-'));
    const configFile = join(root, 'web', 'vite.config.ts');
    await build({ configFile, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    server = await preview({ configFile, logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    url = server.resolvedUrls!.local[0]!;
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Trains the page's setup to the end; the first and last losses it reported. */
  async function train(page: Awaited<ReturnType<typeof browser.newPage>>): Promise<{ first: number; last: number }> {
    await page.click('#train');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.done === 'true', undefined, { timeout: 90_000 });
    return { first: Number(await page.getAttribute('#status', 'data-first-loss')), last: Number(await page.getAttribute('#status', 'data-loss')) };
  }

  it('opens mlp_softmax.onnx, draws it, fine-tunes it on iris and on an uploaded CSV', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.selectOption('#data', 'iris');
    await page.setInputFiles('#onnx-file', join(files, 'mlp_softmax.onnx'));
    await page.waitForFunction(() => (document.getElementById('model') as HTMLTextAreaElement).value.startsWith('dense(4,16)'));
    expect(await page.inputValue('#model')).toBe('dense(4,16) >> tanh >> dense(16,3) >> softmax');
    expect(await page.textContent('#model-note')).toMatch(/imported mlp_softmax\.onnx: trains from its weights.*ends in softmax/);
    expect(await page.textContent('#model-error')).toBe('');
    // the string diagram of the imported composite
    const diagram = await page.innerHTML('#diagram');
    expect(diagram).toContain('<svg');
    expect(diagram).toContain('dense(4,16)');
    expect(diagram).toContain('softmax');
    await page.fill('#epochs', '60');
    await page.fill('#lr', '0.02');
    const iris = await train(page);
    expect(iris.last).toBeLessThan(iris.first);
    expect(await page.textContent('#status')).toMatch(/^done: epoch 60\/60 .* accuracy/);
    await page.screenshot({ path: screenshotPath('playground-onnx.png') });

    // the same model on a CSV the user uploads (the Iris file with its class names): the model fits it and is kept
    await page.setInputFiles('#csv-file', join(root, 'data', 'iris.csv'));
    await page.waitForFunction(() => (document.getElementById('data') as HTMLSelectElement).value === 'uploaded');
    expect(await page.textContent('#data option[value="uploaded"]')).toBe('iris.csv (uploaded)');
    expect(await page.inputValue('#model')).toBe('dense(4,16) >> tanh >> dense(16,3) >> softmax');
    expect(await page.textContent('#model-note')).toMatch(/kept your model/);
    const csv = await train(page);
    expect(csv.last).toBeLessThan(csv.first);
    expect(Number.isFinite(csv.last)).toBe(true);

    // a file that is not ONNX: the import's message, and the model unchanged
    await page.setInputFiles('#onnx-file', join(root, 'data', 'iris.csv'));
    await page.waitForFunction(() => document.getElementById('model-error')!.textContent !== '');
    expect(await page.textContent('#model-error')).toMatch(/^iris\.csv: /);
    expect(await page.inputValue('#model')).toBe('dense(4,16) >> tanh >> dense(16,3) >> softmax');
    expect(errors).toEqual([]);
  }, 240_000);
});
