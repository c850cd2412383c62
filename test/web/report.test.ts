import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { sections } from '../../src/cli/tour/sections.js';
import { chromium, needs } from '../peer/available.js';
import { launch, screenshotPath } from './browser.js';

describe('the tour and its HTML report', () => {
  it('runs every perspective and writes one self-contained page that renders in Chromium without errors', async (ctx) => {
    const file = join(mkdtempSync(join(tmpdir(), 'paralens-tour-')), 'tour.html');
    const r = await cli('tour', '--report', file, '--json');
    expect(r.code).toBe(0);
    const j = r.json();
    for (const s of sections) expect(Object.keys(j.sections), `section ${s.id} produced no output`).toContain(s.id);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(sections.length);
    needs(ctx, chromium());
    const browser = await launch();
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (q) => requests.push(q.url()));
      await page.goto('file://' + file);
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
      expect(await page.locator('section h2').count()).toBe(Object.keys(j.sections).length + 1);
      const sizes = await page.$$eval('figure svg', (els) => els.map((e) => e.getBoundingClientRect().width));
      expect(sizes.length).toBeGreaterThanOrEqual(sections.length);
      expect(Math.min(...sizes)).toBeGreaterThan(50);
      await page.screenshot({ path: screenshotPath('tour-report.png') });
    } finally {
      await browser.close();
    }
  });
});
