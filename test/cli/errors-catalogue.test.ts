import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const root = join(__dirname, '..', '..');
const sources = files(join(root, 'src')).map((f) => ({ path: relative(root, f).split('\\').join('/'), text: readFileSync(f, 'utf8') }));

/** Every error code the code can raise: each quoted 'E_…' literal in src/, with the files it is in. */
const used = new Map<string, string[]>();
for (const { path, text } of sources) for (const m of text.matchAll(/['"`](E_[A-Z0-9_]+)['"`]/g)) used.set(m[1]!, [...(used.get(m[1]!) ?? []), path]);

interface Row {
  code: string;
  exit: string;
  raisedBy: string;
  cause: string;
  remedy: string;
}

/** The rows of the codes table in docs/errors.md: | `E_…` | exit | class | raised when | what to do |. */
const rows: Row[] = readFileSync(join(root, 'docs', 'errors.md'), 'utf8')
  .split('\n')
  .filter((l) => /^\|\s*`E_/.test(l))
  .map((l) => {
    const cells = l
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    return { code: cells[0]!.replace(/`/g, ''), exit: cells[1] ?? '', raisedBy: cells[2] ?? '', cause: cells[3] ?? '', remedy: cells[4] ?? '' };
  });

describe('the error catalogue (docs/errors.md)', () => {
  it('finds the codes in the code and the rows in the catalogue', () => {
    expect(used.size).toBeGreaterThan(10);
    expect(rows.length).toBeGreaterThan(10);
  });

  it('lists every code raised in src/, with its exit code, a cause and a remedy', () => {
    const listed = new Map(rows.map((r) => [r.code, r]));
    const missing = [...used.keys()].filter((c) => !listed.has(c));
    expect(missing, 'codes raised in src/ but not in docs/errors.md').toEqual([]);
    for (const r of rows) {
      expect(['1', '2'], `${r.code}: exit`).toContain(r.exit);
      expect(r.cause.length, `${r.code}: what raises it`).toBeGreaterThan(20);
      expect(r.remedy.length, `${r.code}: what to do`).toBeGreaterThan(20);
    }
  });

  it('lists each code once, and only codes that exist in src/', () => {
    const codes = rows.map((r) => r.code);
    expect(
      codes.filter((c, i) => codes.indexOf(c) !== i),
      'listed twice',
    ).toEqual([]);
    expect(
      codes.filter((c) => !used.has(c)),
      'listed in docs/errors.md but raised nowhere in src/',
    ).toEqual([]);
  });

  it('names the class that raises each code, and the file it lives in', () => {
    for (const r of rows) {
      const m = /^`(\w+)`(?:\s*\(`([^`]+)`\))?$/.exec(r.raisedBy);
      if (r.code === 'E_INTERNAL') {
        expect(r.raisedBy).toMatch(/any other exception/);
        continue;
      }
      expect(m, `${r.code}: the class column '${r.raisedBy}' should read \`Class\` or \`Class\` (\`src/….ts\`)`).not.toBeNull();
      const [, cls, file = 'src/errors.ts'] = m!;
      const src = sources.find((s) => s.path === file);
      expect(src, `${r.code}: ${file} does not exist`).toBeDefined();
      // the class is defined in that file (ParalensError itself is raised there with the code)
      if (cls !== 'ParalensError') expect(src!.text, `${r.code}: class ${cls} is not defined in ${file}`).toMatch(new RegExp(`class ${cls} extends`));
      expect(used.get(r.code) ?? [], `${r.code} is not raised in ${file}`).toContain(file);
    }
  });
});
