import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import type { PreviewServer } from 'vite';
import { chromium, describeWith } from '../peer/available.js';
import { launch, screenshotPath } from './browser.js';
import { textProblems } from './text-boxes.js';

const root = join(__dirname, '..', '..');

describeWith(chromium(), 'the playground in Chromium', () => {
  let server: PreviewServer;
  let url: string;
  let browser: Awaited<ReturnType<typeof launch>>;

  beforeAll(async () => {
    // the production build, served statically: what users get from `npm run build:web`
    const { build, preview } = await import('vite');
    const outDir = mkdtempSync(join(tmpdir(), 'paralens-web-'));
    const configFile = join(root, 'web', 'vite.config.ts');
    await build({ configFile, logLevel: 'error', build: { outDir, emptyOutDir: true } });
    server = await preview({ configFile, logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    url = server.resolvedUrls!.local[0]!;
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('trains: the loss falls and the decision boundary changes; a link restores a setup; bad input is explained', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url);
    await page.selectOption('#data', 'circles');
    expect(await page.inputValue('#model')).toBe('dense(2,8) >> tanh >> dense(8,8) >> tanh >> dense(8,1)');
    await page.fill('#epochs', '200');
    // χ before training is drawn by the worker (nothing is built on the page's thread)
    await page.waitForFunction(() => document.getElementById('boundary')!.innerHTML.includes('χ before training'), undefined, { timeout: 30_000 });
    const untrained = await page.innerHTML('#boundary');
    expect(untrained).toContain('χ before training');
    await page.click('#train');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.done === 'true', undefined, { timeout: 90_000 });
    const firstLoss = Number(await page.getAttribute('#status', 'data-first-loss'));
    const lastLoss = Number(await page.getAttribute('#status', 'data-loss'));
    expect(lastLoss).toBeLessThan(firstLoss * 0.5);
    expect(await page.innerHTML('#boundary')).not.toBe(untrained);
    expect(await page.textContent('#status')).toMatch(/^done: epoch 200\/200 .* accuracy/);
    expect(await page.getAttribute('#status', 'data-state')).toBe('done');
    // the boundary: one smoothly scaled image (no seams between cells), χ⁻¹(½) traced, a colour bar, points that are filled
    const boundary = await page.innerHTML('#boundary');
    expect(boundary).toMatch(/<image [^>]*preserveAspectRatio="none"/);
    expect(boundary).not.toMatch(/<rect [^>]*fill="rgb/);
    expect(boundary).toContain('class="colour-bar"');
    expect(boundary).toMatch(/<polyline [^>]*stroke="#111"/);
    expect(boundary).toMatch(/<circle [^>]*fill="#(1f77b4|ff7f0e)" stroke="#222"/);
    // the loss axis is labelled even when the loss stays within one decade
    expect(await page.$$eval('#loss text[text-anchor="end"]', (ts) => ts.length)).toBeGreaterThanOrEqual(2);
    // the preview server sends the isolation headers: the wasm backend, with its worker thread where there is a second core
    const threads = availableParallelism();
    expect(await page.getAttribute('#status', 'data-backend')).toMatch(new RegExp(`^wasm, (relaxed|plain) SIMD, ${threads} threads?$`));
    expect(await page.innerHTML('#diagram')).toContain('dense(2,8)');
    expect(page.url()).toContain('data=circles');
    await page.screenshot({ path: screenshotPath('playground.png') });

    // a link with the whole state restores it
    await page.goto(
      `${url}#data=xor&model=${encodeURIComponent('dense(2,4) >> tanh >> dense(4,1)')}&lr=0.1&optimizer=sgd&batch=4&epochs=50&seed=3&uncertainty=off`,
    );
    await page.reload();
    expect(await page.inputValue('#data')).toBe('xor');
    expect(await page.inputValue('#model')).toBe('dense(2,4) >> tanh >> dense(4,1)');
    expect(await page.inputValue('#optimizer')).toBe('sgd');
    expect(await page.inputValue('#lr')).toBe('0.1');
    expect(await page.inputValue('#seed')).toBe('3');
    expect(await page.isHidden('#notice')).toBe(true);

    // a spec that does not compose: the CLI's message next to the field, and no training
    await page.fill('#model', 'dense(2,4) >> dense(3,1)');
    expect(await page.textContent('#model-error')).toBe('dense(3,1) expects [*,3] but got [*,4] from dense(2,4)');
    const before = await page.textContent('#status');
    await page.click('#train');
    await page.waitForTimeout(300);
    expect(await page.textContent('#status')).toBe(before);

    // a short link with 8192-wide layers is refused before anything is built, on memory or on work
    // (it once froze the tab for minutes at 1.6 GB): the message names the estimate, no diagram is drawn
    for (const [width, why] of [
      [8192, /takes about 1\.\d GiB .* the limit is 1\.0 GiB/],
      [2048, /multiply-adds; the limit is 2\.00e\+11/],
    ] as const) {
      await page.goto(`${url}#data=moons&model=${encodeURIComponent(`dense(2,${width}) >> tanh >> dense(${width},${width}) >> tanh >> dense(${width},1)`)}`);
      await page.reload();
      expect(await page.textContent('#model-error')).toMatch(why);
      expect(await page.evaluate(() => 1 + 1)).toBe(2);
      expect(await page.innerHTML('#diagram')).toBe('');
    }

    // a malformed hash falls back to the defaults, with a notice
    await page.goto(`${url}#data=nope&lr=abc`);
    await page.reload();
    expect(await page.isVisible('#notice')).toBe(true);
    expect(await page.textContent('#notice')).toMatch(/'nope' is not a valid data/);
    expect(await page.inputValue('#data')).toBe('moons');
    expect(errors).toEqual([]);
  });

  it('uncertainty shading starts from a stochastic net and draws the predictive std; a NaN stops training with the message', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${url}#data=moons&epochs=40`);
    await page.selectOption('#uncertainty', 'mc-dropout');
    expect(await page.inputValue('#model')).toMatch(/dropout\(0\.1\)/);
    await page.click('#train');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.done === 'true', undefined, { timeout: 90_000 });
    expect(await page.innerHTML('#uncertainty-view')).toContain('predictive std (mc-dropout)');
    await page.selectOption('#uncertainty', 'bayes');
    expect(await page.inputValue('#model')).toMatch(/^bayes_dense\(2,16\)/);

    await page.goto(`${url}#data=moons&model=${encodeURIComponent('dense(2,8) >> dense(8,1)')}&lr=50&optimizer=sgd&epochs=500&uncertainty=off`);
    await page.reload();
    await page.click('#train');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.state === 'failed', undefined, { timeout: 60_000 });
    expect(await page.textContent('#status')).toMatch(/^failed: .*(NaN|Infinity|non-finite).* at epoch \d+/);
    await page.screenshot({ path: screenshotPath('playground-failed.png') });
  });

  it('the std map has its own colour scale and colour bar; Stop leaves a stopped mark with the epoch', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(
      `${url}#data=moons&epochs=60&uncertainty=mc-dropout&model=${encodeURIComponent('dense(2,16) >> relu >> dropout(0.1) >> dense(16,16) >> relu >> dropout(0.1) >> dense(16,1)')}`,
    );
    await page.reload();
    await page.click('#train');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.done === 'true', undefined, { timeout: 90_000 });
    const std = await page.innerHTML('#uncertainty-view');
    expect(std).toContain('class="colour-bar"');
    expect(std).toContain('std of P(class) over samples');
    // the std scale ends at its own maximum, not at the classifier's 1
    const top = await page.$$eval('#uncertainty-view .colour-bar text', (ts) => ts.map((t) => Number(t.textContent)).filter(Number.isFinite));
    expect(Math.max(...top)).toBeLessThan(1);
    await page.screenshot({ path: screenshotPath('playground-std.png') });

    await page.goto(`${url}#data=spirals&epochs=5000`);
    await page.reload();
    await page.click('#train');
    await page.waitForFunction(() => Number(document.getElementById('status')!.dataset.epoch ?? 0) >= 5, undefined, { timeout: 60_000 });
    expect(await page.getAttribute('#status', 'data-state')).toBe('training');
    expect(await page.textContent('#status')).toMatch(/^training: epoch \d+\/5000/);
    await page.click('#stop');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.state === 'stopped', undefined, { timeout: 30_000 });
    expect(await page.textContent('#status')).toMatch(/^stopped at epoch \d+\/5000  loss \d/);
    const epoch = await page.getAttribute('#status', 'data-epoch');
    await page.waitForTimeout(400);
    expect(await page.getAttribute('#status', 'data-epoch')).toBe(epoch); // it did stop
    await page.screenshot({ path: screenshotPath('playground-stopped.png') });
  });

  it('a data-set change keeps a typed model that fits and says when it does not; the page reflows at phone width', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(`${url}#data=moons`);
    await page.reload();
    await page.fill('#model', 'dense(2,6) >> tanh >> dense(6,1)');
    await page.selectOption('#data', 'circles');
    expect(await page.inputValue('#model')).toBe('dense(2,6) >> tanh >> dense(6,1)');
    expect(await page.textContent('#model-note')).toBe('kept your model: it fits circles');
    await page.selectOption('#data', 'iris');
    expect(await page.inputValue('#model')).toBe('dense(4,16) >> relu >> dense(16,3)');
    expect(await page.textContent('#model-note')).toMatch(/^your model does not fit iris \(.+\); replaced by the default for iris$/);
    // the page's own default follows the data set without a fuss
    await page.selectOption('#data', 'blobs');
    expect(await page.inputValue('#model')).toBe('dense(2,8) >> tanh >> dense(8,3)');
    expect(await page.textContent('#model-note')).toBe('the default model for blobs');
    // a wide string diagram scrolls inside its figure instead of widening the page
    await page.fill('#model', Array.from({ length: 12 }, () => 'dense(2,2) >> tanh').join(' >> ') + ' >> dense(2,3)');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(1400);
    // the page's own pictures readable at both widths: no two labels overlap, none under a box, none cut off, none under 8 px
    expect(await textProblems(page, '#views figure'), 'at 1400 px').toEqual([]);
    await page.setViewportSize({ width: 420, height: 900 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(420);
    expect(await textProblems(page, '#views figure'), 'at 420 px').toEqual([]);
    await page.fill('#model', 'dense(2,8) >> tanh >> dense(8,3)');
    await page.waitForFunction(() => !document.getElementById('diagram')!.textContent!.includes('dense(2,2)'));
    expect(await textProblems(page, '#views figure'), 'at 420 px, a short model').toEqual([]);
    const [controls, views] = await Promise.all(['#controls', '#views'].map((s) => page.locator(s).boundingBox()));
    expect(views!.y).toBeGreaterThan(controls!.y + controls!.height - 1); // stacked, not side by side
    await page.screenshot({ path: screenshotPath('playground-phone.png'), fullPage: true });
  });

  it('the ensemble view reports where the experts glue', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${url}#data=moons&epochs=30`);
    // every (state, text) the status line shows while the ensemble trains: reading them one await at a
    // time after the click races the worker, which may already have finished
    await page.evaluate(() => {
      const status = document.getElementById('status')!;
      const seen: [string | undefined, string | null][] = [];
      (window as unknown as { statusSeen: typeof seen }).statusSeen = seen;
      new MutationObserver(() => seen.push([status.dataset.state, status.textContent])).observe(status, {
        attributes: true,
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.click('#ensemble');
    await page.waitForFunction(() => document.getElementById('status')!.dataset.state === 'ensemble-done', undefined, { timeout: 90_000 });
    const seen = await page.evaluate(() => (window as unknown as { statusSeen: [string | undefined, string | null][] }).statusSeen);
    expect(seen.some(([state, text]) => state === 'ensemble' && /^training expert \d of 5/.test(text ?? ''))).toBe(true);
    expect(await page.textContent('#sheaf')).toMatch(/\d+ of 4096 grid points satisfy the sheaf condition/);
    expect(await page.textContent('#status')).toMatch(/^ensemble finished: 5 experts; \d+ of 4096 grid points glue/);
    expect(await page.innerHTML('#sheaf')).toContain('class="colour-bar"');
    await page.screenshot({ path: screenshotPath('playground-ensemble.png') });
  });
});
