// The built playground (`npm run build:web`) is one self-contained page: it trains when opened
// from file:// (where Chromium fetches no module script, style sheet or worker beside the page)
// and when served under a sub-path (where absolute /assets/ paths would miss). Without
// Chromium: skipped with the reason, failing under CI=true.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, describeWith } from '../peer/available.js';
import { buildPlayground, launch } from './browser.js';

const SUB = '/tools/paralens/';

describeWith(chromium(), 'the built playground from file:// and under a sub-path', () => {
  let outDir: string;
  let server: Server;
  let browser: Awaited<ReturnType<typeof launch>>;

  beforeAll(async () => {
    outDir = await buildPlayground();
    // a static server that has the page only under SUB: a path outside it is a 404
    server = createServer((req, res) => {
      const path = decodeURIComponent((req.url ?? '/').split(/[?#]/)[0]!);
      const file = path === SUB ? 'index.html' : path.startsWith(SUB) ? path.slice(SUB.length) : undefined;
      if (!file || file.includes('..') || !readdirSync(outDir).includes(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': file.endsWith('.html') ? 'text/html' : 'application/octet-stream' }).end(readFileSync(join(outDir, file)));
    });
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((ok) => server?.close(ok));
  });

  it('is one file: nothing beside index.html for a page to fetch', () => {
    expect(readdirSync(outDir)).toEqual(['index.html']);
    const html = readFileSync(join(outDir, 'index.html'), 'utf8');
    expect(html).not.toMatch(/\s(src|href)="\/?assets\//);
  });

  for (const where of ['file://', 'a sub-path'] as const) {
    it(`trains from ${where}`, async () => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const problems: string[] = [];
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('pageerror', (e) => problems.push(String(e)));
      page.on('requestfailed', (r) => problems.push(`failed: ${r.url()}`));
      page.on('response', (r) => r.status() >= 400 && problems.push(`${r.status()}: ${r.url()}`));
      const base = where === 'file://' ? pathToFileURL(join(outDir, 'index.html')).href : `http://127.0.0.1:${(server.address() as AddressInfo).port}${SUB}`;
      await page.goto(`${base}#data=xor&model=${encodeURIComponent('dense(2,4) >> tanh >> dense(4,1)')}&lr=0.1&batch=4&epochs=15`);
      expect(await page.inputValue('#model')).toBe('dense(2,4) >> tanh >> dense(4,1)');
      expect(await page.innerHTML('#diagram')).toContain('dense(2,4)');
      await page.click('#train');
      await page.waitForFunction(() => ['done', 'failed'].includes(document.getElementById('status')!.dataset.state ?? ''), undefined, { timeout: 90_000 });
      expect(await page.textContent('#status')).toMatch(/^done: epoch 15\/15 /);
      // the style sheet applied: the form is the 340 px column of web/style.css
      expect((await page.locator('#controls').boundingBox())!.width).toBe(340);
      expect(problems).toEqual([]);
    });
  }
});
