import { promises as fs } from 'node:fs';
import { dirname, basename, join } from 'node:path';

/** Writes a file atomically: a temporary file in the same directory, then a rename. An existing file is untouched if writing fails. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);
  try {
    await fs.writeFile(tmp, data);
    await fs.rename(tmp, path);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
}
