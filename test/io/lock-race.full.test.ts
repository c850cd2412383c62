// Locks taken over atomically (issue 32, item 9): processes that start together on a stale lock
// never both hold it — once two runs each removed the other's fresh lock (2 of 60 trials). Real
// processes, released at the same instant, each trying takeLock and holding what they get; 30
// trials of three. The full tier (compiles the CLI, spawns 90 processes).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildCli } from '../reliability/build.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-lock-race-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A pid no process has any more. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['-e', '0']);
    p.on('exit', () => resolve(p.pid!));
  });
}

/**
 * `n` processes that wait for the same instant, then take the lock, hold it for `holdMs` and
 * release it; each reports 'got' or 'held <pid>'. Returns their reports.
 */
async function race(nodeFs: string, lock: string, n: number, holdMs: number): Promise<string[]> {
  const at = Date.now() + 400;
  const script = `
    const { takeLock } = await import(${JSON.stringify(pathToFileURL(nodeFs).href)});
    while (Date.now() < ${at});
    const r = takeLock(${JSON.stringify(lock)});
    if ('release' in r) { Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${holdMs}); r.release(); process.stdout.write('got'); }
    else process.stdout.write('holder' in r ? 'held ' + r.holder : 'odd ' + r.odd);`;
  const runs = Array.from(
    { length: n },
    () =>
      new Promise<string>((resolve) => {
        const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        p.stdout.on('data', (d) => (out += d));
        p.on('exit', () => resolve(out));
      }),
  );
  return Promise.all(runs);
}

describe('takeLock under a race', () => {
  it('processes released together on a stale lock: exactly one holds it, the others name it; no claim is left', async () => {
    const built = buildCli('lock-race');
    try {
      const nodeFs = join(built.dir, 'src', 'io', 'node-fs.js');
      for (let trial = 0; trial < 30; trial++) {
        const dir = mkdtempSync(join(work, 'race-'));
        const lock = join(dir, '.checkpoint.lock');
        writeFileSync(lock, `${await deadPid()}\n`);
        // holding longer than the others take to start: whoever loses sees a live holder
        const reports = await race(nodeFs, lock, 3, 1500);
        expect(
          reports.filter((r) => r === 'got'),
          reports.join(' | '),
        ).toHaveLength(1);
        expect(reports.filter((r) => r.startsWith('held ')).length + reports.filter((r) => r.startsWith('odd ')).length).toBe(2);
        expect(readdirSync(dir), 'the lock released and every claim removed').toEqual([]);
      }
    } finally {
      built.cleanup();
    }
  }, 900_000);
});
