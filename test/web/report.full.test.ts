import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { linesHtml } from '../../src/cli/tour/report.js';
import { table } from '../../src/cli/progress.js';
import { sections } from '../../src/cli/tour/sections.js';
import { chromium, needs } from '../peer/available.js';
import { launch, screenshotPath } from './browser.js';
import { textProblems } from './text-boxes.js';

describe('the tour and its HTML report', () => {
  it('text tables become HTML tables, prose wraps, pictures in characters stay preformatted', () => {
    const html = linesHtml([
      'a sentence long enough to wrap',
      table(
        ['a', 'b c'],
        [
          [1, 'two words'],
          [3, 4],
        ],
      ),
      '  #..#',
      '  .##.',
      '',
      '  indented prose line',
    ]);
    expect(html).toContain('<p>a sentence long enough to wrap</p>');
    expect(html).toContain('<thead><tr><th>a</th><th>b c</th></tr></thead><tbody><tr><td>1</td><td>two words</td></tr><tr><td>3</td><td>4</td></tr></tbody>');
    expect(html).toContain('<pre>  #..#\n  .##.</pre>');
    expect(html).toContain('<p class="sub">indented prose line</p>');
  });

  it('runs every perspective and writes one self-contained page: contents, numbered sections, captions, no overflow at 1400 and 420 px', async (ctx) => {
    const file = join(mkdtempSync(join(tmpdir(), 'paralens-tour-')), 'tour.html');
    const r = await cli('tour', '--report', file, '--json');
    expect(r.code).toBe(0);
    const j = r.json();
    for (const s of sections) expect(Object.keys(j.sections), `section ${s.id} produced no output`).toContain(s.id);
    const html = readFileSync(file, 'utf8');
    expect(html).not.toMatch(/<script|src="http|href="http/);
    expect((html.match(/<svg /g) ?? []).length).toBeGreaterThanOrEqual(sections.length);
    // every figure says what to see in it; Topos II has its pictures
    const captions = [...html.matchAll(/<figcaption>(.*?)<\/figcaption>/gs)].map((m) => m[1]!);
    expect(captions.length).toBe((html.match(/<figure /g) ?? []).length);
    for (const c of captions) expect(c).toMatch(/<b>Figure \d+\.\d+\.<\/b> .*What to see/s);
    const toposII = html.slice(html.indexOf('<section id="topos-network">'), html.indexOf('</section>', html.indexOf('<section id="topos-network">')));
    for (const picture of ['class="node star"', 'Ω(A(h))', 'class="cluster"']) expect(toposII).toContain(picture);
    needs(ctx, chromium());
    const browser = await launch();
    try {
      // the negative control of the text check: a picture with each fault is caught, one without none
      const control = await browser.newPage({ viewport: { width: 800, height: 400 } });
      await control.setContent(
        '<figure id="bad"><svg width="300" height="100"><text x="10" y="20" font-size="12">identity</text><text x="40" y="20" font-size="12">permute(1,0)</text>' +
          '<text x="10" y="60" font-size="12">over x</text><rect x="5" y="45" width="80" height="30" fill="#eef"/><text x="250" y="90" font-size="12">cut off here</text>' +
          '<text x="150" y="40" font-size="4">tiny</text></svg></figure>' +
          '<figure id="good"><svg width="300" height="100"><text x="10" y="20" font-size="12">identity</text><text x="120" y="20" font-size="12">permute(1,0)</text></svg></figure>',
      );
      expect(await textProblems(control, 'figure')).toEqual([
        "bad: 'identity' overlaps 'permute(1,0)'",
        "bad: 'over x' is hidden under a box drawn after it",
        "bad: 'cut off here' is cut off by the picture's edge",
        expect.stringMatching(/^bad: 'tiny' is [0-7]\.\d px tall$/),
      ]);
      await control.close();
      for (const width of [1400, 420]) {
        const page = await browser.newPage({ viewport: { width, height: width > 1000 ? 1000 : 900 } });
        const errors: string[] = [];
        const requests: string[] = [];
        page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
        page.on('pageerror', (e) => errors.push(String(e)));
        page.on('request', (q) => requests.push(q.url()));
        await page.goto('file://' + file);
        expect(errors).toEqual([]);
        expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
        // the table of contents links every numbered section, to the end
        const toc = await page.$$eval('nav.toc a', (as) => as.map((a) => a.getAttribute('href')!));
        const ids = await page.$$eval('section', (ss) => ss.map((s) => '#' + s.id));
        expect(toc).toEqual(ids);
        const titles = await page.$$eval('section h2', (hs) => hs.map((h) => h.textContent!));
        expect(titles.length).toBe(sections.length + 1);
        titles.forEach((t, i) => expect(t).toMatch(new RegExp(`^${i + 1}\\. `)));
        // nothing wider than the page; prose wraps (no paragraph wider than its box); figures fit
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        expect(await page.$$eval('p', (ps) => ps.filter((p) => p.scrollWidth > p.clientWidth + 1).map((p) => p.textContent))).toEqual([]);
        const over = await page.$$eval(
          'figure svg',
          (els) => els.filter((e) => e.getBoundingClientRect().width > e.parentElement!.getBoundingClientRect().width + 1).length,
        );
        expect(over).toBe(0);
        const sizes = await page.$$eval('figure svg', (els) => els.map((e) => e.getBoundingClientRect().width));
        expect(Math.min(...sizes)).toBeGreaterThan(width > 1000 ? 300 : 250);
        // every label of every figure readable: no two overlap, none under a box, none cut off, none under 8 px (a wide one pans instead)
        expect(await textProblems(page, 'figure'), `at ${width} px`).toEqual([]);
        await page.screenshot({ path: screenshotPath(`tour-${width}.png`) });
        await page.locator('#topos-network').scrollIntoViewIfNeeded();
        await page.evaluate(() => document.getElementById('topos-network')!.scrollIntoView());
        await page.screenshot({ path: screenshotPath(`tour-${width}-topos.png`) });
        await page.close();
      }
    } finally {
      await browser.close();
    }
  }, 600_000); // the whole tour, then a browser at two widths: minutes on a loaded machine
});
