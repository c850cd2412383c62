import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A fresh project that uses paralens as a consumer would: from the file `npm pack` writes.
 * What is shared by test/docs/consumer.full.test.ts: the README's blocks it runs, and the
 * lockfile that lets `npm install` of the tarball run from the local npm cache.
 */

interface LockEntry {
  readonly version?: string;
  readonly resolved?: string;
  readonly integrity?: string;
  readonly dependencies?: Record<string, string>;
  readonly [field: string]: unknown;
}

interface PackageJson {
  readonly version: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  readonly peerDependenciesMeta?: Record<string, unknown>;
  readonly bin?: Record<string, string>;
  readonly engines?: Record<string, string>;
}

/**
 * A package-lock.json for a project that depends on the tarball alone. Its dependencies'
 * entries (resolved URL and integrity) are the repository's own, so `npm install` finds every
 * tarball in the cache that `npm ci` filled and needs no registry metadata: installing works
 * offline on a machine that has run `npm ci` here, and fetches only those tarballs elsewhere.
 */
export function consumerLock(root: string, tarball: string): object {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as PackageJson;
  const spec = `file:${tarball}`;
  const packages: Record<string, LockEntry> = {
    '': { dependencies: { paralens: spec } },
    'node_modules/paralens': {
      version: pkg.version,
      resolved: spec,
      integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
      dependencies: pkg.dependencies,
      peerDependencies: pkg.peerDependencies,
      peerDependenciesMeta: pkg.peerDependenciesMeta,
      bin: pkg.bin,
      engines: pkg.engines,
    },
  };
  // Node's lookup through the lock's folders: node_modules/a/node_modules/b, then node_modules/b
  const locate = (from: string, name: string): string => {
    for (let base = from; ; ) {
      const key = `${base ? `${base}/` : ''}node_modules/${name}`;
      if (lock.packages[key]) return key;
      if (!base) throw new Error(`package-lock.json has no ${name} reachable from '${from}'`);
      const up = base.lastIndexOf('/node_modules/');
      base = up < 0 ? '' : base.slice(0, up);
    }
  };
  const todo = Object.keys(pkg.dependencies ?? {}).map((name) => locate('', name));
  for (let key = todo.pop(); key !== undefined; key = todo.pop()) {
    if (packages[key]) continue;
    const entry = lock.packages[key]!;
    packages[key] = entry;
    for (const name of Object.keys(entry.dependencies ?? {})) todo.push(locate(key, name));
  }
  return { name: 'my-app', lockfileVersion: 3, requires: true, packages };
}

/** The fenced blocks of a page in a language (```ts, ```js), in order. */
export function fencedBlocks(md: string, language: string): string[] {
  return [...md.matchAll(new RegExp('^```' + language + '\\n([\\s\\S]*?)^```', 'gm'))].map((m) => m[1]!);
}

/** The shell lines of the block after `<!-- consumer-test: NAME -->`, comments and blank lines dropped. */
export function markedShell(md: string, name: string): string[] {
  const m = new RegExp(`<!-- consumer-test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(md);
  if (!m) throw new Error(`no block marked <!-- consumer-test: ${name} --> followed by a \`\`\`sh block`);
  return m[1]!
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter(Boolean);
}
