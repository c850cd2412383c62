import { promises as fs } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DataError } from '../errors.js';

/**
 * Writes a file atomically: a temporary file in the same directory, then a rename. If
 * anything fails, an existing file at `path` is left as it was, the temporary file is
 * removed, and a DataError names the file (the CLI exits 2).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, path);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? `directory ${dirname(path)} does not exist` : code === 'EISDIR' ? 'it is a directory' : (code ?? (e as Error).message);
    throw new DataError(`cannot write ${path}: ${why}`);
  }
}

/** Fails early (before long work) when nothing could be written at `path`: its directory is missing or `path` is a directory. */
export async function checkWritablePath(path: string): Promise<void> {
  const dir = dirname(path);
  const st = await fs.stat(dir).catch(() => undefined);
  if (!st?.isDirectory()) throw new DataError(`cannot write ${path}: directory ${dir} does not exist`);
  const target = await fs.stat(path).catch(() => undefined);
  if (target?.isDirectory()) throw new DataError(`cannot write ${path}: it is a directory`);
}
