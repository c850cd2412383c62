import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every `import { … } from 'paralens…'` in the TypeScript of README.md and docs/*.md names an
 * entry point of package.json's "exports" that exports each of those names — so moving a name
 * between the root and a subpath cannot leave a page behind (docs/api.md lists the entry
 * points). The entry points are read from the sources they are built from.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const exportsMap = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, string | { import: string }> }).exports;

/** The source module an entry point is built from: './dist/src/x.js' → src/x.ts. */
function sourceOf(specifier: string): string | undefined {
  const entry = exportsMap[specifier === 'paralens' ? '.' : `./${specifier.slice('paralens/'.length)}`];
  if (entry === undefined || typeof entry === 'string') return undefined;
  return join(root, entry.import.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
}

interface DocImport {
  readonly page: string;
  readonly specifier: string;
  readonly names: readonly string[];
}

const IMPORT = /import\s*\{([^}]*)\}\s*from\s*'(paralens[^']*)'/g;
const imports: DocImport[] = pages.flatMap((page) =>
  [...readFileSync(join(root, page), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].flatMap((block) =>
    [...block[1]!.matchAll(IMPORT)].map((m) => ({
      page,
      specifier: m[2]!,
      names: m[1]!
        .split(',')
        .map((s) => s.trim().split(/\s+as\s+/)[0]!)
        .filter(Boolean),
    })),
  ),
);

describe("the docs' TypeScript imports", () => {
  it('there are some (README and the perspectives import from the package)', () => {
    expect(imports.length).toBeGreaterThan(10);
    expect(imports.some((i) => i.page === 'README.md' && i.specifier === 'paralens')).toBe(true);
  });

  it.each(imports.map((i) => [`${i.page}: ${i.specifier}`, i] as const))('%s names an entry point that exports what it imports', async (_t, i) => {
    const source = sourceOf(i.specifier);
    expect(source, `${i.specifier} is not in package.json "exports"`).toBeDefined();
    const mod = (await import(pathToFileURL(source!).href)) as Record<string, unknown>;
    expect(i.names.filter((n) => !(n in mod))).toEqual([]);
  });
});
