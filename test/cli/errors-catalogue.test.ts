import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

describe('the error catalogue (docs/errors.md)', () => {
  it('documents every error code used in the code', () => {
    const root = join(__dirname, '..', '..');
    const used = new Set<string>();
    for (const f of files(join(root, 'src'))) for (const m of readFileSync(f, 'utf8').matchAll(/'(E_[A-Z0-9_]+)'/g)) used.add(m[1]!);
    expect(used.size).toBeGreaterThan(5);
    const doc = readFileSync(join(root, 'docs', 'errors.md'), 'utf8');
    const missing = [...used].filter((c) => !new RegExp(`\\b${c}\\b`).test(doc));
    expect(missing, `codes missing from docs/errors.md`).toEqual([]);
  });
});
