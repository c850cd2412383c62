import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the playground', () => {
  it('type-checks against the library (web/tsconfig.json)', () => {
    const root = join(__dirname, '..', '..');
    let out = '';
    try {
      execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(root, 'web', 'tsconfig.json')], {
        cwd: root,
        encoding: 'utf8',
      });
    } catch (e) {
      out = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(out).toBe('');
  });
});
