// Locks taken over atomically (issue 32, item 9): what takeLock does with an absent, a live, a
// stale and an odd lock. The race of processes released together is lock-race.full.test.ts.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { takeLock } from '../../src/io/node-fs.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-lock-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A pid no process has any more. */
function deadPid(): Promise<number> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['-e', '0']);
    p.on('exit', () => resolve(p.pid!));
  });
}

describe('takeLock', () => {
  it('takes an absent lock, refuses a live holder, takes over a stale or empty one, and refuses a lock that is not a file', async () => {
    const dir = mkdtempSync(join(work, 'unit-'));
    const lock = join(dir, '.lock');
    const mine = takeLock(lock);
    expect('release' in mine).toBe(true);
    expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
    if ('release' in mine) mine.release();
    expect(readdirSync(dir)).toEqual([]);
    writeFileSync(lock, `${process.ppid}\n`);
    expect(takeLock(lock)).toEqual({ holder: process.ppid });
    for (const stale of [`${await deadPid()}\n`, '', 'garbage']) {
      writeFileSync(lock, stale);
      const got = takeLock(lock);
      expect('release' in got, JSON.stringify(stale)).toBe(true);
      expect(readFileSync(lock, 'utf8')).toBe(`${process.pid}\n`);
      if ('release' in got) got.release();
    }
    rmSync(lock, { force: true });
    writeFileSync(join(dir, 'target'), '');
    (await import('node:fs')).symlinkSync(join(dir, 'target'), lock);
    expect(takeLock(lock)).toMatchObject({ odd: 'it is not a regular file' });
    expect(readdirSync(dir).sort()).toEqual(['.lock', 'target']);
  });
});
