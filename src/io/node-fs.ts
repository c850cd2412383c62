import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../errors.js';

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

/**
 * Replaces the file at `path` crash-safely: the bytes go to the temporary file `tmp` in the
 * same directory, which is fsynced and renamed over `path` (atomic on POSIX), and the
 * directory is fsynced so the rename is durable. Until the rename the old file is untouched;
 * after it the new one is complete. On failure the temporary file is removed (if it can be)
 * and the file system's error is thrown.
 */
export function replaceFileSync(path: string, data: string | Uint8Array, tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)): void {
  const bytes = typeof data === 'string' ? new TextEncoder().encode(data) : data;
  try {
    const fd = openSync(tmp, 'w');
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
    fsyncPath(dirname(path), 'r');
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // e.g. ENOTDIR: the "directory" is a file, so no temporary file was made
    }
    throw e;
  }
}

/**
 * Writes a file atomically and durably (replaceFileSync). If anything fails, an existing
 * file at `path` is left as it was and a DataError names the file (the CLI exits 2).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  try {
    replaceFileSync(path, data);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `directory ${dirname(path)} does not exist` : code === 'ENOTDIR' ? `${dirname(path)} is not a directory` : code === 'EISDIR' ? 'it is a directory' : (code ?? (e as Error).message);
    throw new DataError(`cannot write ${path}: ${why}`);
  }
}

/** Fails early (before long work) when nothing could be written at `path`: its directory is missing or not one, or `path` is a directory. */
export async function checkWritablePath(path: string): Promise<void> {
  const dir = dirname(path);
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st) throw new DataError(`cannot write ${path}: directory ${dir} does not exist`);
  if (!st.isDirectory()) throw new DataError(`cannot write ${path}: ${dir} is not a directory`);
  const target = await fs.stat(path).catch(() => undefined);
  if (target?.isDirectory()) throw new DataError(`cannot write ${path}: it is a directory`);
}
