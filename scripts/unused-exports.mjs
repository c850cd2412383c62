#!/usr/bin/env node
// Lists the names that files in src/ export but that nothing uses: never imported by a file
// in src/, test/, web/ or bench/ (directly or through a re-export), and not part of the
// public API — what src/index.ts and the package's other entry points ("exports" in
// package.json) re-export. Such an `export` is dead: drop the keyword, or the declaration
// if nothing in its own file uses it either. (Types that an exported signature in the same
// file uses are kept: see below.)
//
//   node scripts/unused-exports.mjs          one "file: name" line per unused export; exit 1 if any
//
// A regex reader of this code base's own style (TypeScript 7 has no compiler API in JS), so
// it is conservative: a namespace import (import * as) or a dynamic import() marks every
// export of its module as used.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const walk = (dir) =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    if (statSync(p).isDirectory()) return f === 'node_modules' || f === 'assembly' ? [] : walk(p);
    return /\.(ts|mts)$/.test(f) && !f.endsWith('.d.ts') ? [p] : [];
  });
const files = ['src', 'test', 'web', 'bench'].filter((d) => existsSync(join(root, d))).flatMap((d) => walk(join(root, d)));
const text = new Map(files.map((f) => [f, readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|(^|[^:'"`])\/\/.*$/gm, '$1')]));

/** The .ts file a relative specifier names from `from`, or undefined (packages, other files). */
function target(from, spec) {
  if (!spec.startsWith('.')) return undefined;
  const p = resolve(dirname(from), spec);
  for (const c of [p.replace(/\.js$/, '.ts'), `${p}.ts`, join(p, 'index.ts')]) if (text.has(c)) return c;
  return undefined;
}

/** `a, b as c, type d` → [[a, a], [b, c], [d, d]] (imported or local name, exported or bound name). */
const names = (list) =>
  list
    .split(',')
    .map((s) => s.trim().replace(/^type\s+/, ''))
    .filter(Boolean)
    .map((s) => {
      const [a, b] = s.split(/\s+as\s+/);
      return [a.trim(), (b ?? a).trim()];
    });

// what each module declares, re-exports by name, and re-exports wholesale
const declared = new Map(),
  named = new Map(),
  star = new Map(),
  used = new Set(),
  all = new Set();
for (const [f, src] of text) {
  if (!f.startsWith(join(root, 'src'))) continue;
  declared.set(
    f,
    new Set(
      [
        ...src.matchAll(
          /^export\s+(?:declare\s+)?(?:default\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|class|const|let|var|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm,
        ),
      ].map((m) => m[1]),
    ),
  );
  named.set(f, []);
  star.set(f, []);
  for (const m of src.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}\s*(?:from\s*['"]([^'"]+)['"])?/gm)) {
    const t = m[2] ? target(f, m[2]) : undefined;
    for (const [local, exported] of names(m[1])) {
      if (t) named.get(f).push({ exported, from: t, name: local });
      else declared.get(f).add(exported);
    }
  }
  for (const m of src.matchAll(/^export\s+\*\s+as\s+([\w$]+)\s+from\s*['"]([^'"]+)['"]/gm)) {
    declared.get(f).add(m[1]);
    const t = target(f, m[2]);
    if (t) named.get(f).push({ exported: m[1], from: t, name: '*' });
  }
  for (const m of src.matchAll(/^export\s+\*\s+from\s*['"]([^'"]+)['"]/gm)) {
    const t = target(f, m[1]);
    if (t) star.get(f).push(t);
  }
}

/** Marks `name` of module f used, following re-exports to where it is declared. */
function use(f, name, seen = new Set()) {
  if (!declared.has(f) || seen.has(`${f}:${name}`)) return;
  seen.add(`${f}:${name}`);
  if (name === '*') {
    all.add(f);
    for (const n of declared.get(f)) used.add(`${f}:${n}`);
    for (const r of named.get(f)) use(r.from, r.name, seen);
    for (const s of star.get(f)) use(s, '*', seen);
    return;
  }
  used.add(`${f}:${name}`);
  for (const r of named.get(f)) if (r.exported === name) use(r.from, r.name, seen);
  for (const s of star.get(f)) use(s, name, seen);
}

// the public API: the package's entry points, every name they export
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entries = Object.values(pkg.exports ?? {})
  .map((e) => (typeof e === 'object' ? e.import : e))
  .filter((e) => typeof e === 'string' && e.endsWith('.js'));
for (const e of entries) {
  const f = join(root, e.replace(/^\.\/dist\//, '').replace(/\.js$/, '.ts'));
  if (text.has(f)) use(f, '*');
}

// every import, in every file
for (const [f, src] of text) {
  for (const m of src.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    const t = target(f, m[2]);
    if (t) for (const [name] of names(m[1])) use(t, name);
  }
  for (const m of src.matchAll(/\bimport\s+\*\s+as\s+[\w$]+\s+from\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|new\s+URL\(\s*['"]([^'"]+)['"]/g)) {
    const t = target(f, m[1] ?? m[2] ?? m[3]);
    if (t) use(t, '*');
  }
  // a re-export by name inside src/ is a use only when its own name is used (handled by use())
}

// A type or interface that names part of an exported function's signature in its own file
// (its options, its result) stays exported even when nobody imports it: callers may need to
// name it. Such a type counts as unused only when its file does not mention it again.
const isType = (src, n) => new RegExp(`^export\\s+(?:declare\\s+)?(?:interface|type)\\s+${n}\\b`, 'm').test(src);
const mentions = (src, n) => (src.match(new RegExp(`\\b${n}\\b`, 'g')) ?? []).length;
const unused = [];
for (const [f, ns] of declared) {
  for (const n of ns) {
    if (used.has(`${f}:${n}`)) continue;
    const src = text.get(f);
    if (isType(src, n) && mentions(src, n) > 1) continue;
    unused.push(`${relative(root, f)}: ${n}`);
  }
}
unused.sort();
for (const u of unused) console.log(u);
console.error(`${unused.length} unused export(s)`);
process.exit(unused.length ? 1 : 0);
