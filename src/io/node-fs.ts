import { randomBytes } from 'node:crypto';
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeSync,
} from 'node:fs';
import type { Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DataError, formatBytes } from '../errors.js';

/**
 * Safe file writing, in one place (every output of the CLI comes here: --save, --onnx,
 * --report, draw -o, checkpoints):
 *
 * - a file is written to a temporary file in its own directory, fsynced, and renamed over
 *   the target (atomic on POSIX), then the directory is fsynced: the old file or the new one,
 *   never half of either;
 * - the temporary file has a random name, `.NAME.<pid>.<8 hex>.tmp`, and is created
 *   exclusively without following a symlink (O_CREAT|O_EXCL|O_NOFOLLOW): nothing planted in
 *   the directory can redirect the bytes;
 * - the target must be a regular file or absent: a symbolic link, a device, a FIFO, a socket
 *   or a read-only file is refused unless `force` (rename then replaces the entry itself —
 *   never what a link points to), a directory always;
 * - writability and free space are probed before the work (`checkWritableSync`);
 * - temporary files are removed on every exit path: failure, process exit, SIGINT, SIGTERM,
 *   SIGHUP; the ones a killed run left (the pid in their name is gone) are removed by the
 *   next write into the directory.
 */
export interface WriteOptions {
  /** Replace a target that is not a writable regular file (never a directory). */
  readonly force?: boolean;
  /** The bytes that will be written, for the free-space probe (default: one block). */
  readonly bytes?: number;
}

/**
 * A temporary file's name: `.NAME.<pid>.<8 hex>.tmp` (the random part required, so that a random
 * part of only digits cannot pass for the pid — it once did, 2 % of the time, and the stale file
 * stayed), or the older `.NAME.<pid>[.probe].tmp`.
 */
const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;
const OLD_TEMP_NAME = /^\.(.+)\.(\d+)(?:\.probe)?\.tmp$/;
const TEMP = { exec: (name: string): RegExpExecArray | null => TEMP_NAME.exec(name) ?? OLD_TEMP_NAME.exec(name) };

/** A fresh random temporary path beside `target`. */
export function tempPath(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** Whether a process is running (a zombie — killed, not yet reaped — counts as gone). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // field 3 of /proc/<pid>/stat, after the parenthesised command name, is the state
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc: trust kill(pid, 0)
  }
}

// Temporary files this process holds: removed at exit and on the signals that end it.
const live = new Set<string>();
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let exitHooked = false;

function removeLive(): void {
  for (const p of live) removeQuietly(p);
  live.clear();
}

/**
 * Removes the live temporary files, then lets the signal do what it would have done: the
 * handlers are in place only while a temporary file exists, so a long computation is never
 * kept from dying of Ctrl-C.
 */
function onSignal(signal: NodeJS.Signals): void {
  removeLive();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  process.kill(process.pid, signal);
}

function track(path: string): void {
  if (!exitHooked) {
    process.on('exit', removeLive);
    exitHooked = true;
  }
  if (live.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  live.add(path);
}

function untrack(path: string): void {
  live.delete(path);
  if (live.size === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // e.g. ENOTDIR: the "directory" is a file, so there is nothing to remove
  }
}

/**
 * Creates a temporary file beside `target`, exclusively and without following symlinks, and
 * tracks it for removal at exit or on a signal. `done()` stops tracking (after rename or removal).
 */
export function createTemp(target: string): { fd: number; path: string; done: () => void } {
  for (let attempt = 0; ; attempt++) {
    const path = tempPath(target);
    try {
      const fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o666);
      track(path);
      return { fd, path, done: () => untrack(path) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw e;
    }
  }
}

/**
 * Removes the temporary files that runs killed before they could clean up left beside
 * `target`: those named after it (or, with `all`, any paralens temporary file in its
 * directory) whose pid is not a running process.
 */
export function removeStaleTemps(target: string, all = false): void {
  for (const t of tempsBeside(target, all)) if (t.pid === process.pid ? !live.has(t.path) : !processAlive(t.pid)) removeQuietly(t.path);
}

/** The paralens temporary files in the directory of `target`: those named after it, or (`all`) every one; none when it cannot be listed. */
function tempsBeside(target: string, all = false): { path: string; pid: number }[] {
  const dir = dirname(target),
    base = basename(target);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const m = TEMP.exec(name);
    return m && (all || m[1] === base) ? [{ path: join(dir, name), pid: Number(m[2]) }] : [];
  });
}

/** fsync a file or directory (flags 'r' for a directory); file systems that cannot sync a directory are let be. */
function fsyncPath(path: string, flags: string): void {
  const fd = openSync(path, flags);
  try {
    fsyncSync(fd);
  } catch {
    // some file systems do not support fsync on directories; the rename is still atomic
  } finally {
    closeSync(fd);
  }
}

/** What is at a path, for a message: 'a symbolic link', 'a FIFO', …; undefined for a regular file. */
function oddKind(st: Stats): string | undefined {
  if (st.isFile()) return undefined;
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The reason a target may not be replaced, or undefined: refuses odd entries and read-only files unless `force`, directories always. */
function targetProblem(path: string, force: boolean): string | undefined {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    return code === 'ENOTDIR' ? `${dirname(path)} is not a directory` : (code ?? (e as Error).message);
  }
  const kind = oddKind(st);
  if (kind === 'a directory') return 'it is a directory';
  if (force) return undefined;
  if (kind) return `it is ${kind}; paralens replaces only regular files (--force replaces the entry itself, never what it points to)`;
  if ((st.mode & 0o222) === 0) return 'it is read-only (--force replaces it)';
  return undefined;
}

const why = (e: unknown, path: string): string => {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return `directory ${dirname(path)} does not exist`;
  if (code === 'ENOTDIR') return `${dirname(path)} is not a directory`;
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOSPC') return 'no space left on the device';
  return code ?? (e as Error).message;
};

/**
 * Fails early (before long work) when `path` could not be written: its directory is missing,
 * not one, or not writable (a temporary file is created and removed there), the target may not
 * be replaced (see `targetProblem`), or the file system has less free space than `bytes`.
 * A DataError names the file and the reason (the CLI exits 2).
 */
export function checkWritableSync(path: string, opts: WriteOptions = {}): void {
  const fail = (reason: string): never => {
    throw new DataError(`cannot write ${path}: ${reason}`);
  };
  if (path === '') fail('the name is empty');
  const problem = targetProblem(path, opts.force ?? false);
  if (problem) fail(problem);
  const dir = dirname(path);
  let st: Stats;
  try {
    st = statSync(dir); // the directory may be reached through a link; only the target may not be one
  } catch (e) {
    return fail(why(e, path));
  }
  if (!st.isDirectory()) fail(`${dir} is not a directory`);
  try {
    const t = createTemp(path);
    closeSync(t.fd);
    rmSync(t.path, { force: true });
    t.done();
  } catch (e) {
    fail(`the directory ${dir} cannot be written (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const need = opts.bytes ?? 4096;
  let free: number;
  try {
    const fs = statfsSync(dir);
    free = fs.bavail * fs.bsize;
  } catch {
    return; // no statfs here: the write itself will tell
  }
  if (free < need) fail(`not enough free space: ${formatBytes(need)} needed, ${formatBytes(free)} free on its file system`);
}

/**
 * Replaces the file at `path` crash-safely (see the top of this file); the target is checked
 * again first (something may have been planted since the probe). On failure the temporary file
 * is removed and the file system's error is thrown; a refused target is a DataError.
 */
export function replaceFileSync(path: string, data: string | Uint8Array, opts: WriteOptions = {}): void {
  const problem = targetProblem(path, opts.force ?? false);
  if (problem) throw new DataError(`cannot write ${path}: ${problem}`);
  removeStaleTemps(path);
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  const t = createTemp(path);
  try {
    try {
      keepModeOf(path, t.fd);
      for (let at = 0; at < bytes.length;) at += writeSync(t.fd, bytes, at, bytes.length - at);
      fsyncSync(t.fd);
    } finally {
      closeSync(t.fd);
    }
    renameSync(t.path, path);
    t.done();
    fsyncPath(dirname(path), 'r');
  } catch (e) {
    removeQuietly(t.path);
    t.done();
    throw e;
  }
}

/**
 * Gives the new file (open as `fd`) the mode, and where allowed the owner, of the regular file
 * it will replace: `--save` over a 0600 file once left a 0644 one.
 */
function keepModeOf(path: string, fd: number): void {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch {
    return; // a new file: the umask decides, as for any new file
  }
  if (!st.isFile()) return;
  if (st.uid !== process.getuid?.() || st.gid !== process.getgid?.()) {
    try {
      fchownSync(fd, st.uid, st.gid);
    } catch {
      // not allowed (not root, not a member of the group): the owner becomes this user
    }
  }
  // the permission bits only: set-user-ID and set-group-ID never carry over to written bytes
  fchmodSync(fd, st.mode & 0o777);
}

/**
 * Writes a file atomically and durably (replaceFileSync). If anything fails, an existing
 * file at `path` is left as it was and a DataError names the file (the CLI exits 2).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, opts: WriteOptions = {}): Promise<void> {
  try {
    replaceFileSync(path, data, opts);
  } catch (e) {
    if (e instanceof DataError) throw e;
    throw new DataError(`cannot write ${path}: ${why(e, path)}`);
  }
}

/** A pause of about `ms` milliseconds without returning to the event loop (locks are taken synchronously). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The pid a lock file names, or undefined (absent, unreadable, or not a pid). */
function lockHolder(lock: string): number | undefined {
  try {
    const st = lstatSync(lock);
    if (!st.isFile()) return -1;
    const m = /^(\d+)\n?$/.exec(readFileSync(lock, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return undefined;
  }
}

/** Whether another running process holds a temporary file beside `lock`: a claim on it (see takeLock). */
function otherClaims(lock: string): boolean {
  return tempsBeside(lock).some((t) => t.pid !== process.pid && processAlive(t.pid));
}

/** What takeLock found: the lock is this process's now (release it when done), or a running process holds it. */
export type LockOutcome = { readonly release: () => void } | { readonly holder: number } | { readonly odd: string };

/**
 * Takes the lock file `lock` (its content: this process's pid) for this process.
 *
 * Every attempt first writes a claim — a complete temporary file beside the lock, named with
 * this pid — and keeps it until the attempt ends. An absent lock is created from the claim by a
 * hard link (atomic: created whole, or EEXIST); a lock whose process is gone (stale) is taken
 * over by renaming the claim over it (atomic: no moment without a lock). Either step is kept
 * only if no other running process held a claim meanwhile; otherwise the attempt steps back
 * and tries again after a short random pause. Of two processes whose claims overlap, the one
 * that checks later sees the other's claim, so two can never both take the lock — the race of
 * removing a stale lock and creating a fresh one, in which each of two runs removed the other's
 * fresh lock (2 of 60 trials), is gone.
 */
export function takeLock(lock: string, attempts = 50): LockOutcome {
  const mine = `${process.pid}\n`;
  const release = (): void => {
    try {
      if (readFileSync(lock, 'utf8') === mine) rmSync(lock, { force: true });
    } catch {
      // already gone
    }
  };
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) pause(2 + Math.random() * 20);
    const claim = createTemp(lock);
    try {
      try {
        writeSync(claim.fd, mine);
      } finally {
        closeSync(claim.fd);
      }
      try {
        linkSync(claim.path, lock);
        if (!otherClaims(lock)) return { release };
        release(); // another process is taking over at the same time: step back, try again
        continue;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
      const holder = lockHolder(lock);
      if (holder === undefined) continue; // released meanwhile
      if (holder === -1) return { odd: 'it is not a regular file' };
      if (holder === process.pid) return { release };
      if (holder > 0 && processAlive(holder)) return { holder };
      // stale (its process is gone, or it names none): take it over, unless someone else is claiming it too
      if (otherClaims(lock) || lockHolder(lock) !== holder) continue;
      renameSync(claim.path, lock);
      return { release };
    } finally {
      removeQuietly(claim.path);
      claim.done();
    }
  }
  return { odd: 'it keeps changing (other processes are taking it at the same time)' };
}

/**
 * Replaces several files as a set: every one is written in full to its own temporary file
 * (and fsynced) before any is renamed into place, then they are renamed in the order given and
 * the directories fsynced. A failure while writing leaves every target as it was; a kill
 * between the renames — microseconds, not the time it takes to write the files — can leave a
 * set of old and new files, which is why a set should carry a stamp its readers check (the
 * PyTorch project's `load()`). Targets are checked as replaceFileSync checks them.
 */
export function replaceFilesSync(files: readonly (readonly [string, string | Uint8Array])[], opts: WriteOptions = {}): void {
  for (const [path] of files) {
    const problem = targetProblem(path, opts.force ?? false);
    if (problem) throw new DataError(`cannot write ${path}: ${problem}`);
  }
  const staged: { path: string; temp: ReturnType<typeof createTemp> }[] = [];
  try {
    for (const [path, data] of files) {
      removeStaleTemps(path);
      const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
      const t = createTemp(path);
      staged.push({ path, temp: t });
      try {
        keepModeOf(path, t.fd);
        for (let at = 0; at < bytes.length;) at += writeSync(t.fd, bytes, at, bytes.length - at);
        fsyncSync(t.fd);
      } finally {
        closeSync(t.fd);
      }
    }
    for (const { path, temp } of staged) {
      renameSync(temp.path, path);
      temp.done();
    }
    for (const dir of new Set(files.map(([p]) => dirname(p)))) fsyncPath(dir, 'r');
  } catch (e) {
    for (const { temp } of staged) {
      removeQuietly(temp.path);
      temp.done();
    }
    throw e;
  }
}
