import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Compiles the package into a private directory for tests that run the real CLI as a child
 * process (`node OUT/src/cli/main.js`), so they never race with a `dist/` being rebuilt.
 * It lives under node_modules/.cache so that the compiled code resolves its dependencies;
 * its own package.json makes Node read it as ES modules. The Python files of the PyTorch export
 * are copied beside the compiled modules, as `npm run build` does (scripts/copy-python.mjs).
 */
export function buildCli(tag: string): { main: string; dir: string; cleanup: () => void } {
  const root = join(__dirname, '..', '..');
  const cache = join(root, 'node_modules', '.cache');
  // builds of test processes that are gone (a worker torn down skips its 'exit' cleanup): each is a whole compiled tree
  for (const old of existsSync(cache) ? readdirSync(cache) : []) {
    const pid = /^paralens-.+-(\d+)$/.exec(old)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(cache, old), { recursive: true, force: true });
  }
  const dir = join(cache, `paralens-${tag}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Type errors elsewhere in the tree (work in progress) do not stop emission; a missing main.js does.
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(root, 'tsconfig.json'),
      '--outDir',
      dir,
      '--declaration',
      'false',
      '--sourceMap',
      'false',
    ],
    { encoding: 'utf8' },
  );
  const main = join(dir, 'src', 'cli', 'main.js');
  if (!existsSync(main)) throw new Error(`tsc did not build ${main}: ${r.stdout}${r.stderr}`);
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  const python = join('src', 'io', 'pytorch', 'python');
  cpSync(join(root, python), join(dir, python), { recursive: true });
  return { main, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Whether process `pid` exists (signal 0 tests without sending). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
