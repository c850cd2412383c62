import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { built, itWith } from '../peer/available.js';

/**
 * README.md's TypeScript runs as it is written, against the built package: each ```ts block
 * is an ES module importing from 'paralens' (Node resolves the package's own name through
 * package.json's "exports" from inside it), run with node. Its blocks are plain JavaScript.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const blocks = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const out = join(root, 'test-output', 'readme');

itWith(built(join(root, 'dist/src/index.js')), `README.md's ${blocks.length} TypeScript block(s) run against the built package`, () => {
  expect(blocks.length).toBeGreaterThan(0);
  mkdirSync(out, { recursive: true });
  blocks.forEach((code, i) => {
    const file = join(out, `block-${i + 1}.mjs`);
    writeFileSync(file, code);
    const r = spawnSync(process.execPath, [file], { cwd: root, encoding: 'utf8' });
    expect(r.status, `README.md block ${i + 1}:\n${r.stderr}`).toBe(0);
  });
}, 120_000);
