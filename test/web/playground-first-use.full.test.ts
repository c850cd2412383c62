// A newcomer's first minutes with the playground, in Chromium on the production build: the first
// click on Train counts even when it blurs a field that changed the layout; the status line
// speaks to a browser's reader and fits a phone; the loss, std and sheaf pictures show the
// model in the form, never a model it no longer holds. Without Chromium: skipped with the
// reason, failing under CI=true.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { PreviewServer } from 'vite';
import { join } from 'node:path';
import { chromium, describeWith } from '../peer/available.js';
import { buildPlayground, launch, screenshotPath } from './browser.js';

const root = join(__dirname, '..', '..');
const link = (base: string, s: Record<string, string | number>): string =>
  `${base}#${new URLSearchParams(Object.entries(s).map(([k, v]) => [k, String(v)])).toString()}`;
const stateOf = (page: Page): Promise<string | null> => page.getAttribute('#status', 'data-state');
const waitState = (page: Page, ...states: string[]): Promise<unknown> =>
  page.waitForFunction((ss) => ss.includes(document.getElementById('status')!.dataset.state ?? ''), states, { timeout: 90_000 });

describeWith(chromium(), 'the playground at first use, in Chromium', () => {
  let server: PreviewServer;
  let url: string;
  let browser: Awaited<ReturnType<typeof launch>>;

  beforeAll(async () => {
    const outDir = await buildPlayground();
    const { preview } = await import('vite');
    server = await preview({ configFile: join(root, 'web', 'vite.config.ts'), logLevel: 'error', build: { outDir }, preview: { port: 0, host: '127.0.0.1' } });
    url = server.resolvedUrls!.local[0]!;
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('the first click on Train counts: a field losing focus leaves the layout where it was', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(link(url, { data: 'moons', epochs: 30 }));
    await page.reload();
    // type a model, then switch (focus staying in the model field) to a data set it does not fit
    await page.click('#model');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('dense(2,6) >> tanh >> dense(6,1)');
    await page.selectOption('#data', 'iris');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('model');
    const note = await page.textContent('#model-note');
    expect(note).toMatch(/^your model does not fit iris .*; replaced by the default for iris$/);
    const buttons = async () => Promise.all(['#train', '#stop', '#ensemble'].map((b) => page.locator(b).boundingBox()));
    const before = await buttons();
    // the click's mousedown blurs the model field first; the click must still land on Train
    await page.click('#train');
    await waitState(page, 'training', 'done');
    expect(await page.textContent('#model-note')).toBe(note);
    expect(await buttons()).toEqual(before);
    await waitState(page, 'done');

    // every field: focusing it and leaving it moves nothing (a number field's change event included)
    for (const field of ['#data', '#model', '#lr', '#optimizer', '#batch', '#epochs', '#seed', '#uncertainty']) {
      await page.focus(field);
      const at = await buttons();
      await page.evaluate(() => (document.activeElement as HTMLElement).blur());
      expect(await buttons(), field).toEqual(at);
    }
    // an edit of the model is what clears the note
    await page.fill('#model', 'dense(4,8) >> tanh >> dense(8,3)');
    expect(await page.textContent('#model-note')).toBe('');
  });

  it('the status line speaks to a browser and fits a phone: no advice for Node, no nested brackets, at most three lines at 420 px', async () => {
    const page = await browser.newPage({ viewport: { width: 420, height: 900 } });
    await page.goto(link(url, { data: 'xor', model: 'dense(2,4) >> tanh >> dense(4,1)', lr: 0.1, batch: 4, epochs: 20 }));
    await page.reload();
    await page.click('#train');
    await waitState(page, 'done');
    const text = (await page.textContent('#status'))!;
    expect(text).toMatch(/^done: epoch 20\/20 /);
    // this Chromium runs without a GPU (--disable-gpu): WebGPU is there but has no adapter
    expect(await page.textContent('#status .where')).toMatch(/^wasm, (relaxed|plain) SIMD, \d threads? · no GPU for WebGPU here$/);
    expect(text).not.toMatch(/apt-get|libvulkan|Node|npm|--backend/);
    expect(text).not.toMatch(/\([^()]*\(/); // no bracket opened inside another
    // lines of text: the rectangles of each text node's line boxes (not of the elements around them)
    const lines = await page.evaluate(() => {
      const walk = document.createTreeWalker(document.getElementById('status')!, NodeFilter.SHOW_TEXT);
      const bottoms = new Set<number>();
      for (let t = walk.nextNode(); t; t = walk.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(t);
        for (const r of range.getClientRects()) bottoms.add(Math.round(r.bottom));
      }
      return bottoms.size;
    });
    expect(lines).toBeGreaterThanOrEqual(2); // what happens, and where it runs
    expect(lines).toBeLessThanOrEqual(3);
    await page.screenshot({ path: screenshotPath('playground-status-phone.png') });
    // a stopped run keeps saying where it ran
    await page.goto(link(url, { data: 'spirals', epochs: 5000 }));
    await page.reload();
    await page.click('#train');
    await page.waitForFunction(() => Number(document.getElementById('status')!.dataset.epoch ?? 0) >= 2, undefined, { timeout: 60_000 });
    await page.click('#stop');
    await waitState(page, 'stopped');
    expect(await page.textContent('#status')).toMatch(/^stopped at epoch \d+\/5000 {2}loss \d.*wasm/);
  });

  it('the pictures follow the model in the form: a changed model clears the last run, its late frames are dropped, Ensemble draws the new one', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const first = 'dense(2,8) >> tanh >> dense(8,1)',
      second = 'dense(2,5) >> relu >> dense(5,1)';
    await page.goto(link(url, { data: 'moons', model: first, epochs: 20 }));
    await page.reload();
    await page.click('#train');
    await waitState(page, 'done');
    expect(await page.textContent('#loss figcaption')).toBe(`the training loss of ${first} on moons`);

    // the model changes: the loss picture of the old one goes, and Ensemble draws the new one
    await page.fill('#model', second);
    expect(await page.innerHTML('#loss')).toBe('');
    expect(await stateOf(page)).toBe('idle');
    expect(await page.textContent('#boundary')).toContain('χ before training');
    await page.click('#ensemble');
    await waitState(page, 'ensemble-done');
    expect(await page.innerHTML('#loss')).toBe('');
    expect(await page.textContent('#sheaf figcaption')).toContain(`experts of ${second} on moons`);
    await page.click('#train');
    await waitState(page, 'done');
    expect(await page.textContent('#loss figcaption')).toBe(`the training loss of ${second} on moons`);
    expect(await page.textContent('#sheaf figcaption')).toContain(second); // the same model: the ensemble picture still holds

    // a change mid-run stops the run; frames it had in flight are not drawn
    await page.fill('#epochs', '5000');
    await page.click('#train');
    await page.waitForFunction(() => Number(document.getElementById('status')!.dataset.epoch ?? 0) >= 2, undefined, { timeout: 60_000 });
    await page.fill('#model', first);
    expect(await stateOf(page)).toBe('idle');
    expect(await page.textContent('#status')).toMatch(/^not trained yet: the setup changed/);
    await page.waitForTimeout(600);
    expect(await stateOf(page)).toBe('idle');
    expect(await page.innerHTML('#loss')).toBe('');
    expect(await page.innerHTML('#sheaf')).toBe('');
  });
});
