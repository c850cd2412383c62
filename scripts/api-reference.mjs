// `npm run docs:api`: the API reference, dist/api/index.html, from the doc comments of every entry
// point in package.json "exports", its index grouped by the floors and rooms of docs/architecture.md.
//
// TypeDoc reads sources through the TypeScript compiler's JavaScript API, which TypeScript 7 (the
// native compiler this package builds with) no longer has; so the reference is built with TypeDoc
// 0.28 on TypeScript 6.0 — the last JavaScript compiler, which reads this source as it is —
// installed apart, in tools/api-reference/ (its own lockfile; `npm ci` there on first use).
// Every TypeDoc warning fails the build (an exported name whose type is not exported, a broken
// link in a doc comment): test/docs/api-reference.full.test.ts runs this script.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, 'tools', 'api-reference');
const typedoc = join(tools, 'node_modules', 'typedoc', 'bin', 'typedoc');
const out = process.argv[2] ?? join(root, 'dist', 'api');

if (!existsSync(typedoc)) execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--prefix', tools], { stdio: 'inherit' });

/** The entry points: [specifier, source file relative to the root]. */
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = Object.entries(pkg.exports)
  .filter(([, v]) => typeof v !== 'string')
  .map(([k, v]) => [`paralens${k.slice(1)}`, v.types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')]);

/** TypeDoc's name of a module: its path under src/ without .ts and a trailing /index. */
const moduleName = (file) =>
  file
    .replace(/^src\//, '')
    .replace(/\.ts$/, '')
    .replace(/\/index$/, '');

/** The floors of docs/architecture.md, top first: [number, rooms (folders and files), description]. */
const arch = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');
const block = /## The floors, from the ground up\n+```\n([\s\S]*?)```/.exec(arch)?.[1];
if (!block) throw new Error('docs/architecture.md: no floors block');
const floors = [];
for (const line of block.split('\n')) {
  const f = /^\s*(\d+)\s{2}(\S.*)$/.exec(line);
  if (f) floors.push({ n: Number(f[1]), rooms: f[2].trim().split(/\s+/), text: [] });
  else if (line.trim()) floors.at(-1)?.text.push(line.trim());
}

/** The room of an entry point's source: its top folder under src/ (`api/`, `io/`) or the root file. */
const roomOf = (file) => {
  const rest = file.replace(/^src\//, '');
  return rest.includes('/') ? `${rest.split('/')[0]}/` : rest;
};

const lines = [
  '# paralens: the API reference',
  '',
  'Every exported name of the package with its doc comment, one module per entry point of `package.json` "exports"',
  '(docs/api.md says what each holds). The entry points below are grouped by the floors of docs/architecture.md, top first:',
  'a floor imports only the floors below it.',
  '',
];
const placed = new Set();
for (const floor of floors) {
  const here = entries.filter(([, file]) => floor.rooms.includes(roomOf(file)));
  if (!here.length) continue;
  lines.push(`## Floor ${floor.n}: ${floor.rooms.map((r) => `\`${r}\``).join(' ')}`, '', floor.text.join(' '), '');
  for (const [spec, file] of here) {
    lines.push(`- {@link "${moduleName(file)}" | \`${spec}\`} — built from \`${file}\``);
    placed.add(spec);
  }
  lines.push('');
}
const lost = entries.filter(([spec]) => !placed.has(spec)).map(([spec]) => spec);
if (lost.length) throw new Error(`docs/architecture.md: no floor holds the room of ${lost.join(', ')}`);

const work = mkdtempSync(join(tmpdir(), 'paralens-api-'));
try {
  writeFileSync(join(work, 'index.md'), lines.join('\n'));
  const options = {
    name: 'paralens',
    entryPoints: entries.map(([, file]) => join(root, file)),
    tsconfig: join(root, 'tsconfig.json'),
    readme: join(work, 'index.md'),
    out,
    excludePrivate: true,
    excludeInternal: true,
    treatWarningsAsErrors: true,
    githubPages: false,
    disableSources: true,
    hideGenerator: true,
  };
  writeFileSync(join(work, 'typedoc.json'), JSON.stringify(options, null, 2));
  execFileSync(process.execPath, [typedoc, '--options', join(work, 'typedoc.json')], { cwd: root, stdio: 'inherit', env: { ...process.env, NO_COLOR: '1' } });
} finally {
  rmSync(work, { recursive: true, force: true });
}
