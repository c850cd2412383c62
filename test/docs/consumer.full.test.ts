import { spawnSync } from 'node:child_process';
import type { SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { built, describeWith } from '../peer/available.js';
import { consumerLock, fencedBlocks, markedShell } from './consumer.js';
import { newest } from './examples.js';

/**
 * The package as a consumer gets it: `npm pack`, then a fresh project made by README's own
 * set-up lines (`npm init -y`, `npm pkg set type=module`, `npm install` of the tarball), where
 * README's TypeScript blocks type-check (TypeScript 7, "module": "nodenext") and run with node,
 * its CommonJS block runs, every entry point of package.json "exports" loads with its types, and
 * the `paralens` command works without the optional peers, saying how to install them. The
 * install runs from the npm cache that `npm ci` filled (consumer.ts says how); no test here
 * touches the repository's files.
 */
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  exports: Record<string, string | { types: string; import: string }>;
  bin: Record<string, string>;
  files: string[];
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const entryPoints = Object.entries(pkg.exports).flatMap(([k, v]) => (typeof v === 'string' ? [] : [{ specifier: `paralens${k.slice(1)}`, ...v }]));

const run = (cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> =>
  spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000 });
const said = (r: SpawnSyncReturns<string>): string => `exit ${r.status}\n${r.stdout}\n${r.stderr}`;

describeWith(built(join(root, 'dist/src/index.js')), 'a fresh project that installs the packed package', () => {
  const work = mkdtempSync(join(tmpdir(), 'paralens-consumer-'));
  let tarball = '';
  let packed: string[] = [];
  let app = '';

  beforeAll(() => {
    expect(newest(join(root, 'dist', 'src'), '.js') >= newest(join(root, 'src'), '.ts') - 1000, 'dist/ is older than src/: npm run build first').toBe(true);
    // --ignore-scripts: `prepare` would rebuild; dist/ is checked current above
    const p = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], root);
    expect(p.status, said(p)).toBe(0);
    const [info] = JSON.parse(p.stdout) as { filename: string; files: { path: string }[] }[];
    tarball = join(work, info!.filename);
    packed = info!.files.map((f) => f.path);

    // README's lines, in one bash session in `work`; `npm install` finds the lockfile that keeps it offline
    writeFileSync(join(work, 'consumer-lock.json'), JSON.stringify(consumerLock(root, tarball), null, 2));
    const lines = markedShell(readme, 'set-up').map((l) => l.replace('/path/to/paralens-0.1.0.tgz', tarball));
    const script = ['set -e', `npm() { if [ "$1" = install ]; then cp "${join(work, 'consumer-lock.json')}" package-lock.json; fi; command npm "$@"; }`, ...lines, 'pwd'];
    const s = run('bash', ['-c', script.join('\n')], work, {
      npm_config_prefer_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    });
    expect(s.status, `README's set-up lines:\n${lines.join('\n')}\n${said(s)}`).toBe(0);
    app = s.stdout.trim().split('\n').pop()!;
    // a consumer's TypeScript settings for Node's ES modules; the tests below check their .ts files with it
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], types: [], strict: true, noEmit: true, skipLibCheck: true },
        include: ['*.ts'],
      }),
    );
  }, 600_000);

  it('README names the version npm pack writes, and its set-up ends in a project with paralens installed', () => {
    expect(readme).toContain(`paralens-${pkg.version}.tgz`);
    expect(app.startsWith(work + '/'), app).toBe(true);
    const manifest = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { type?: string; dependencies?: Record<string, string> };
    expect(manifest.type).toBe('module');
    expect(Object.keys(manifest.dependencies ?? {})).toEqual(['paralens']);
    expect(existsSync(join(app, 'node_modules', 'paralens', 'package.json'))).toBe(true);
  });

  it('the tarball holds what a consumer needs and nothing else: dist/src, data, README, LICENSE', () => {
    const top = new Set(packed.map((f) => (f.startsWith('dist/') ? f.split('/').slice(0, 2).join('/') : f.split('/')[0])));
    expect([...top].sort()).toEqual(['LICENSE', 'README.md', 'data', 'dist/src', 'package.json']);
    expect(packed.filter((f) => /\.tsbuildinfo$|\.test\.|(^|\/)test\//.test(f))).toEqual([]);
    // every entry point, its types and the command are in it
    const needed = [...entryPoints.flatMap((e) => [e.import, e.types]), ...Object.values(pkg.bin)].map((f) => f.replace(/^\.\//, ''));
    expect(needed.filter((f) => !packed.includes(f))).toEqual([]);
    // the PyTorch export reads its Python from beside the compiled module
    expect(packed.filter((f) => f.startsWith('dist/src/io/pytorch/python/') && f.endsWith('.py')).length).toBeGreaterThan(0);
  });

  it('every source map carries the sources it maps (the package ships no src/)', () => {
    const dir = join(app, 'node_modules', 'paralens');
    const maps = packed.filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(100);
    const bare = maps.filter((f) => {
      const m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
      return m.sourcesContent?.length !== m.sources.length || m.sourcesContent.some((c) => typeof c !== 'string' || c.length === 0);
    });
    expect(bare).toEqual([]);
  });

  it('onnxruntime-node and webgpu are optional peers: declared, and not installed with paralens', () => {
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(['onnxruntime-node', 'webgpu']);
    for (const name of Object.keys(pkg.peerDependencies)) {
      expect(pkg.peerDependenciesMeta[name]?.optional, name).toBe(true);
      expect(existsSync(join(app, 'node_modules', name)), name).toBe(false);
      expect(readme, `README says what ${name} enables`).toContain(`\`${name}\``);
    }
  });

  it("README's TypeScript type-checks with TypeScript 7 against the package's types and runs in node", () => {
    const blocks = fencedBlocks(readme, 'ts');
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    blocks.forEach((code, i) => {
      writeFileSync(join(app, `readme-${i + 1}.ts`), code);
      writeFileSync(join(app, `readme-${i + 1}.js`), code);
    });
    const tsc = run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
    expect(tsc.status, said(tsc)).toBe(0);
    blocks.forEach((_, i) => {
      const r = run(process.execPath, [`readme-${i + 1}.js`], app);
      expect(r.status, `README.md's TypeScript block ${i + 1}:\n${said(r)}`).toBe(0);
    });
  });

  it("README's CommonJS block runs with import(); require('paralens') fails as README says", () => {
    const [cjs] = fencedBlocks(readme, 'js');
    expect(cjs).toContain("await import('paralens')");
    writeFileSync(join(app, 'main.cjs'), cjs!);
    const r = run(process.execPath, ['main.cjs'], app);
    expect(r.status, said(r)).toBe(0);
    expect(r.stdout).toContain('dense(2,4)');
    const req = run(process.execPath, ['-e', "require('paralens')"], app);
    expect(req.status).not.toBe(0);
    expect(req.stderr).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
    expect(readme).toContain('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('every entry point of "exports" loads in the project, with its types, and README names it', () => {
    const names = entryPoints.map((e, i) => ({ ...e, id: `m${i}` }));
    const code = [
      ...names.map((e) => `import * as ${e.id} from '${e.specifier}';`),
      `const modules: Record<string, object> = { ${names.map((e) => `'${e.specifier}': ${e.id}`).join(', ')} };`,
      'const empty = Object.entries(modules).filter(([, m]) => Object.keys(m).length === 0).map(([s]) => s);',
      "if (empty.length) throw new Error('no exports: ' + empty.join(', '));",
      'console.log(Object.keys(modules).length);',
    ].join('\n');
    writeFileSync(join(app, 'entry-points.ts'), code);
    writeFileSync(join(app, 'entry-points.js'), code.replace(': Record<string, object>', ''));
    const tsc = run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], app);
    expect(tsc.status, said(tsc)).toBe(0);
    const r = run(process.execPath, ['entry-points.js'], app);
    expect(r.status, said(r)).toBe(0);
    expect(r.stdout.trim()).toBe(String(names.length));
    expect(names.map((e) => e.specifier).filter((s) => !readme.includes(`\`${s}\``))).toEqual([]);
  });

  it('the paralens command runs in the project; without an optional peer it exits naming the package to install', () => {
    const paralens = (...args: string[]): SpawnSyncReturns<string> => run('npx', ['--no-install', 'paralens', ...args], app, { NO_COLOR: '1' });
    const t = paralens('train', '--model', 'dense(4,8) >> tanh >> dense(8,3)', '--data', 'iris', '--epochs', '20', '--save', 'iris.safetensors', '--json');
    expect(t.status, said(t)).toBe(0);
    expect((JSON.parse(t.stdout) as { parameters: number }).parameters).toBe(67);
    const e = paralens('export', '--load', 'iris.safetensors', '--onnx', 'iris.onnx', '--check');
    expect(e.status, said(e)).toBe(2);
    expect(e.stderr.trim().split('\n')).toEqual([expect.stringContaining('npm install onnxruntime-node')]);
    const g = paralens('train', '--model', 'dense(4,3)', '--data', 'iris', '--epochs', '1', '--backend', 'webgpu');
    expect(g.status, said(g)).not.toBe(0);
    expect(g.stderr).toContain('npm install webgpu');
    expect(readdirSync(app)).toContain('iris.safetensors');
  });
});
