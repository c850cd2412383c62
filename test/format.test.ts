import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The tracked sources prettier formats (.prettierignore leaves out the AssemblyScript kernels and generated files). */
function sources(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', 'src', 'test', 'bench', 'web', 'scripts', '*.ts'], { cwd: root, encoding: 'utf8' });
  return tracked.split('\0').filter((f) => /\.(ts|mjs)$/.test(f));
}

describe('form', () => {
  it('every source file is as prettier formats it (npm run format writes it so)', async () => {
    const unformatted: string[] = [];
    for (const file of sources()) {
      const path = join(root, file);
      const info = await prettier.getFileInfo(path, { ignorePath: join(root, '.prettierignore') });
      if (info.ignored) continue;
      const options = await prettier.resolveConfig(path);
      if (!(await prettier.check(readFileSync(path, 'utf8'), { ...options, filepath: path }))) unformatted.push(file);
    }
    expect(unformatted).toEqual([]);
  });

  it('the check sees a file that is not formatted (negative control)', async () => {
    expect(await prettier.check('const a = {b:1}\n', { filepath: 'x.ts', singleQuote: true })).toBe(false);
  });
});
