import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** README.md and docs/*.md name source files and link to each other; every such name must exist. */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pages = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Paths a page names: `src/…`, `test/…`, `bench/…`, `web/…` (not under dist/); a glob (`conv*.ts`) is cut to its prefix, marked with a trailing `*`. */
function namedPaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w/.-])((?:src|test|bench|web|scripts)\/[\w./*{},-]*)/g)) {
    const glob = /[*{]/.test(m[1]!);
    const p = m[1]!.replace(/[*{].*$/, '').replace(/[.,]+$/, '');
    out.push(glob ? `${p}*` : p.replace(/\/$/, ''));
  }
  return out;
}

/** Whether a named path exists: a file, a folder, a .js name of a .ts source, or a glob prefix some file matches. */
function exists(p: string): boolean {
  if (p.endsWith('*')) {
    const prefix = p.slice(0, -1), dir = join(root, dirname(prefix + 'x'));
    const base = prefix.endsWith('/') ? '' : prefix.slice(prefix.lastIndexOf('/') + 1);
    return existsSync(dir) && readdirSync(dir).some((f) => f.startsWith(base));
  }
  return existsSync(join(root, p)) || existsSync(join(root, p.replace(/\.js$/, '.ts')));
}

/** Relative markdown link targets ([text](target)), without anchors. */
function links(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#')).map((t) => t.replace(/#.*$/, ''));
}

describe('docs name files that exist', () => {
  for (const page of pages) {
    it(`${page}: every source path and relative link resolves`, () => {
      const text = readFileSync(join(root, page), 'utf8');
      const missing = [
        ...namedPaths(text).filter((p) => !exists(p)),
        ...links(text).filter((l) => !existsSync(join(root, dirname(page), l))),
      ];
      expect(missing).toEqual([]);
    });
  }

  it('the path finder sees names, globs and links (negative control)', () => {
    expect(namedPaths('in `src/nn/conv*.ts` and `src/topos/` and src/io/node.ts, not dist/src/cli/main.js')).toEqual(['src/nn/conv*', 'src/topos', 'src/io/node.ts']);
    expect(exists('src/nn/conv*')).toBe(true);
    expect(exists('src/nn/nothing*')).toBe(false);
    expect(exists('src/para/para.js')).toBe(true);
    expect(exists('src/para/missing.ts')).toBe(false);
    expect(links('[a](docs/x.md#y) [b](https://e.org) [c](#z)')).toEqual(['docs/x.md']);
  });
});
