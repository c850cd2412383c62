import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FileFormatError } from '../io/errors.js';
import { CheckpointError, decodeCheckpoint, encodeCheckpoint, settingsMismatch } from '../train/checkpoint.js';
import type { Checkpoint } from '../train/checkpoint.js';
import type { Trainer } from '../train/trainer.js';

/**
 * Checkpoint directories on disk (Node only). A directory holds one current checkpoint,
 * `checkpoint.safetensors`. Writing one is crash-safe at every instant:
 *
 *   1. the bytes go to a temporary file in the same directory, which is fsynced;
 *   2. the temporary file is renamed over `checkpoint.safetensors` (atomic on POSIX file
 *      systems), and the directory is fsynced so the rename itself is durable.
 *
 * Until step 2 the previous checkpoint is untouched; after it the new one is complete. A
 * process killed at any point leaves either the old or the new checkpoint, never a partial
 * one (a stray temporary file at worst, removed by the next write).
 */
export const CHECKPOINT_FILE = 'checkpoint.safetensors';
const TMP_PREFIX = '.checkpoint.';

/** The path of the current checkpoint in `dir`. */
export function checkpointPath(dir: string): string {
  return join(dir, CHECKPOINT_FILE);
}

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

/** Writes `bytes` as the checkpoint of `dir` (created if missing), atomically and durably. */
export function writeCheckpointFile(dir: string, bytes: Uint8Array): void {
  try {
    mkdirSync(dir, { recursive: true });
    for (const f of readdirSync(dir)) if (f.startsWith(TMP_PREFIX) && f.endsWith('.tmp')) rmSync(join(dir, f), { force: true });
    const tmp = join(dir, `${TMP_PREFIX}${process.pid}.tmp`);
    const fd = openSync(tmp, 'w');
    try {
      for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, checkpointPath(dir));
    fsyncPath(dir, 'r');
  } catch (e) {
    throw new CheckpointError(`cannot write a checkpoint in ${dir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** Reads the checkpoint of `dir`; undefined when there is none. A damaged file is a FileFormatError naming it. */
export function readCheckpointFile(dir: string): Checkpoint | undefined {
  const path = checkpointPath(dir);
  let st;
  try {
    st = statSync(path, { throwIfNoEntry: false });
  } catch (e) {
    throw new CheckpointError(`cannot read a checkpoint in ${dir}: ${(e as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'it is not a directory' : (e as Error).message}`);
  }
  if (!st) return undefined;
  if (!st.isFile()) throw new CheckpointError(`${path} is not a file`);
  try {
    return decodeCheckpoint(readFileSync(path));
  } catch (e) {
    if (e instanceof FileFormatError) throw new FileFormatError(`${path}: ${e.message}`);
    throw e;
  }
}

export interface CheckpointOptions {
  /** Directory to write checkpoints into (default: the resume directory, if any). */
  dir?: string;
  /** Write every this many epochs (and after the last one). */
  every: number;
  /** Directory of a checkpoint to resume from; it must exist and match `settings`. */
  resume?: string;
  /** The epoch count requested for this run. */
  epochs: number;
  /** The settings that define the run: a resumed run must have the same ones. */
  settings: Record<string, unknown>;
}

/**
 * The `train` hooks that resume from and write checkpoints: `onStart` restores the
 * Trainer from `resume`, `afterEpoch` writes every `every` epochs. The checkpoint is read
 * and checked before training starts, so a bad one fails fast (exit 2).
 */
export function checkpointHooks(opts: CheckpointOptions): { hooks: { onStart?: (t: Trainer) => void; afterEpoch?: (t: Trainer) => void }; summary: () => Record<string, unknown> } {
  const dir = opts.dir ?? opts.resume;
  let resumeFrom: Checkpoint | undefined;
  if (opts.resume !== undefined) {
    resumeFrom = readCheckpointFile(opts.resume);
    if (!resumeFrom) throw new CheckpointError(`no checkpoint to resume in ${opts.resume} (expected ${checkpointPath(opts.resume)}); run without --resume to start afresh`);
    const diff = settingsMismatch(resumeFrom.settings, opts.settings);
    if (diff.length) throw new CheckpointError(`cannot resume from ${opts.resume}: the run's settings differ (${diff.join('; ')})`);
    if (resumeFrom.snapshot.epoch > opts.epochs) {
      throw new CheckpointError(`the checkpoint in ${opts.resume} is at epoch ${resumeFrom.snapshot.epoch}, beyond --epochs ${opts.epochs}`);
    }
  }
  const restore = resumeFrom;
  let written = 0, lastEpoch: number | undefined;
  const hooks = {
    onStart: restore ? (t: Trainer) => t.restore(restore.snapshot) : undefined,
    afterEpoch:
      dir === undefined
        ? undefined
        : (t: Trainer) => {
            if (t.epoch % opts.every !== 0 && t.epoch !== opts.epochs) return;
            writeCheckpointFile(dir, encodeCheckpoint(t.model, t.snapshot(), opts.settings));
            written++;
            lastEpoch = t.epoch;
          },
  };
  // What the CLI reports: where training resumed, and the checkpoint it left.
  const summary = (): Record<string, unknown> => ({
    ...(restore ? { resumed_from: restore.snapshot.epoch } : {}),
    ...(dir !== undefined ? { checkpoint: dir, checkpoint_epoch: lastEpoch ?? restore?.snapshot.epoch ?? null, checkpoints_written: written } : {}),
  });
  return { hooks, summary };
}
