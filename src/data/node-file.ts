/**
 * Reading a file the user named (Node only), in one place for every reader: data files, text,
 * model files, checkpoints. The file type is checked before the file is opened — a FIFO would
 * block the open (or the read) for ever, a device can be endless (/dev/zero) or have effects
 * when opened — and again on the open descriptor (opened non-blocking, so nothing swapped in
 * between can hang it). Sizes are checked before anything is read, and a reader may read the
 * start of a file (a header) before deciding to read the rest.
 */
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { Stats } from 'node:fs';
import { DataError, formatBytes, TooLargeError } from '../errors.js';

/** What is at a path that is not a regular file, for messages: 'a FIFO', 'a directory', …. */
export function fileKind(st: Stats): string {
  if (st.isFile()) return 'a regular file';
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** An open regular file: its size and positioned reads. */
export interface OpenFile {
  readonly path: string;
  readonly size: number;
  /** `length` bytes at `position` (a FileShrank DataError when the file holds fewer). */
  read(position: number, length: number): Uint8Array;
  close(): void;
}

/**
 * Opens `path` for reading if it is a regular file: stat first (refusing a FIFO, a device, a
 * socket or a directory without opening it), then open with O_NONBLOCK and check the
 * descriptor again. `what` names the file in messages ('text:book.txt', 'model file m.st').
 */
export function openRegularFile(path: string, what = path): OpenFile {
  const fail = (reason: string): never => {
    throw new DataError(`cannot read ${what}: ${reason}`);
  };
  const errno = (e: unknown): string => (e as NodeJS.ErrnoException).code ?? (e as Error).message;
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    return fail(errno(e) === 'ENOENT' ? 'no such file (ENOENT)' : errno(e));
  }
  if (!st.isFile()) fail(`it is ${fileKind(st)}; expected a regular file`);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  } catch (e) {
    return fail(errno(e));
  }
  const now = fstatSync(fd);
  if (!now.isFile()) {
    closeSync(fd);
    fail(`it is ${fileKind(now)}; expected a regular file`);
  }
  return {
    path,
    size: now.size,
    read(position: number, length: number): Uint8Array {
      const buf = new Uint8Array(length);
      let at = 0;
      while (at < length) {
        const n = readSync(fd, buf, at, length - at, position + at);
        if (n === 0)
          throw new DataError(
            `cannot read ${what}: it ended after ${position + at} bytes while ${position + length} were expected (it shrank while being read)`,
          );
        at += n;
      }
      return buf;
    },
    close: () => closeSync(fd),
  };
}

/** Runs `use` on the open file and closes it whatever happens. */
export function withRegularFile<T>(path: string, what: string, use: (f: OpenFile) => T): T {
  const f = openRegularFile(path, what);
  try {
    return use(f);
  } finally {
    f.close();
  }
}

/** The whole of a regular file no larger than `max` bytes, checked before reading (TooLargeError beyond). */
export function readRegularFile(path: string, max: number, what = path): Uint8Array {
  return withRegularFile(path, what, (f) => {
    if (f.size > max)
      throw new TooLargeError(`${what}: ${formatBytes(f.size)}, more than the ${formatBytes(max)} paralens reads from such a file`, { bytes: f.size });
    return f.read(0, f.size);
  });
}
