import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `npm run docs:api` builds the API reference from the doc comments with no warning (the
 * script makes every TypeDoc warning an error: an exported name whose type is not exported, a
 * link that leads nowhere), and its index names every entry point of package.json "exports"
 * under the floor of docs/architecture.md its room stands on. The first run installs TypeDoc
 * into tools/api-reference/ from its lockfile (npm's registry or cache).
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; scripts: Record<string, string> };

describe('the API reference', () => {
  it('builds without a warning, one module per entry point, its index grouped by floors', () => {
    expect(pkg.scripts['docs:api']).toBe('node scripts/api-reference.mjs');
    const out = join(mkdtempSync(join(tmpdir(), 'paralens-api-test-')), 'api');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'api-reference.mjs'), out], { cwd: root, encoding: 'utf8', timeout: 900_000, env: { ...process.env, NO_COLOR: '1' } });
    const said = `${r.stdout}\n${r.stderr}`;
    expect(r.status, said).toBe(0);
    expect(said).not.toMatch(/\[warning\]|\[error\]/);
    const index = readFileSync(join(out, 'index.html'), 'utf8');
    const specifiers = Object.entries(pkg.exports)
      .filter(([, v]) => typeof v !== 'string')
      .map(([k]) => `paralens${k.slice(1)}`);
    for (const s of specifiers) expect(index, s).toContain(`<code>${s}</code>`);
    // the floors, top first: the entry points of floor 13 (the root, the perspectives) before tensor/ on floor 1
    const floors = [...new Set([...index.matchAll(/Floor (\d+)/g)].map((m) => Number(m[1])))]; // (the page's outline repeats them)
    expect(floors.length).toBeGreaterThanOrEqual(6);
    expect(floors).toEqual([...floors].sort((a, b) => b - a));
    expect(index.indexOf('<code>paralens/markov</code>')).toBeLessThan(index.indexOf('<code>paralens/tensor</code>'));
    // a doc comment reaches its page: parseSpec's
    const root_ = readFileSync(join(out, 'functions', 'index.parseSpec.html'), 'utf8');
    expect(root_).toMatch(/spec/i);
  }, 1_200_000);
});
