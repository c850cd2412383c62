import { existsSync, lstatSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { NonFiniteError, ParalensError } from '../errors.js';
import { FileFormatError } from '../io/errors.js';
import { checkWritableSync, removeStaleTemps, replaceFileSync, takeLock } from '../io/node-fs.js';
import { fileKind, readRegularFile } from '../data/node-file.js';
import { TRAINING_LIMITS } from './cost.js';
import { CheckpointError, decodeCheckpoint, encodeCheckpoint, settingsMismatch } from './checkpoint.js';
import type { Checkpoint } from './checkpoint.js';
import type { Trainer } from './trainer.js';

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
 * one (a stray temporary file at worst, removed by the next run: its pid is gone). The
 * writing itself is src/io/node-fs.ts's (exclusive random temporary names, no symlinks).
 *
 * A run holds the directory's lock, `.checkpoint.lock` (its pid), from before its first epoch
 * to its end: a second run on the same directory is refused while the first lives, and a lock
 * whose process is gone (killed) is stale and taken over.
 */
const CHECKPOINT_FILE = 'checkpoint.safetensors';
const LOCK_FILE = '.checkpoint.lock';

/** The path of the current checkpoint in `dir`. */
function checkpointPath(dir: string): string {
  return join(dir, CHECKPOINT_FILE);
}

const cannotWrite = (dir: string, e: unknown): CheckpointError => {
  const reason = e instanceof ParalensError ? e.message.replace(/^cannot write [^:]*: /, '') : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
  return new CheckpointError(`cannot write a checkpoint in ${dir}: ${reason}`);
};

/** Writes `bytes` as the checkpoint of `dir` (created if missing), atomically and durably (replaceFileSync). */
export function writeCheckpointFile(dir: string, bytes: Uint8Array): void {
  try {
    makeDir(dir);
    replaceFileSync(checkpointPath(dir), bytes);
  } catch (e) {
    throw cannotWrite(dir, e);
  }
}

/**
 * Takes the lock of a checkpoint directory for this process: refused (CheckpointError) while
 * another running process holds it; a lock whose process is gone is stale and replaced.
 * Returns the release function (removes the lock if it is still this process's).
 */
function lockCheckpointDir(dir: string): () => void {
  const lock = join(dir, LOCK_FILE);
  const got = takeLock(lock);
  if ('holder' in got)
    throw new CheckpointError(
      `${dir} is in use by process ${got.holder} (its lock ${lock}); wait for that run to end, or remove the lock if no paralens run uses the directory`,
    );
  if ('odd' in got) throw new CheckpointError(`cannot lock ${dir}: ${lock} ${got.odd}`);
  const release = (): void => {
    got.release();
    process.removeListener('exit', release);
  };
  process.on('exit', release);
  return release;
}

/**
 * Creates a checkpoint directory and any missing parents, one level at a time (Node's
 * recursive mkdir loops for ever on some special file systems such as /proc, where mkdir
 * answers ENOENT although the parent exists).
 */
function makeDir(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' && statSync(dir).isDirectory()) return;
    const parent = dirname(dir);
    if (code !== 'ENOENT' || parent === dir || existsSync(parent)) throw e;
    makeDir(parent);
    mkdirSync(dir);
  }
}

/**
 * Fails before any training when a checkpoint could not be written in `dir`: creates it, takes
 * its lock, removes what killed runs left (temporary files whose pid is gone), and probes that
 * a checkpoint of about `bytes` can be written there (writable, room for it). Returns the
 * lock's release function.
 */
function probeCheckpointDir(dir: string, bytes?: number): () => void {
  let release: (() => void) | undefined;
  try {
    makeDir(dir);
    release = lockCheckpointDir(dir);
    removeStaleTemps(checkpointPath(dir), true);
    checkWritableSync(checkpointPath(dir), { bytes });
    return release;
  } catch (e) {
    release?.();
    if (e instanceof CheckpointError) throw e;
    throw cannotWrite(dir, e);
  }
}

/**
 * The largest checkpoint file read: what a run within the training memory limit can write
 * (θ and two optimiser slots are at most that). A larger one — a sparse file, say — is refused
 * before a byte of it is read.
 */
const MAX_CHECKPOINT_BYTES = TRAINING_LIMITS.bytes;

/** Reads the checkpoint of `dir`; undefined when there is none. A damaged file is a FileFormatError naming it. */
function readCheckpointFile(dir: string): Checkpoint | undefined {
  const path = checkpointPath(dir);
  let st;
  try {
    st = lstatSync(path, { throwIfNoEntry: false });
  } catch (e) {
    throw new CheckpointError(
      `cannot read a checkpoint in ${dir}: ${(e as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'it is not a directory' : (e as Error).message}`,
    );
  }
  if (!st) return undefined;
  if (!st.isFile()) throw new CheckpointError(`${path} is ${fileKind(st)}, not a checkpoint file`);
  let bytes: Uint8Array;
  try {
    bytes = readRegularFile(path, MAX_CHECKPOINT_BYTES, `the checkpoint ${path}`);
  } catch (e) {
    if (e instanceof ParalensError) throw new CheckpointError(e.message);
    throw e;
  }
  try {
    return decodeCheckpoint(bytes);
  } catch (e) {
    if (e instanceof FileFormatError) throw new FileFormatError(`${path}: ${e.message}`);
    throw e;
  }
}

export interface CheckpointOptions {
  /** Directory to write checkpoints into (default: the resume directory, if any). */
  dir?: string;
  /** Write every this many epochs, or optimiser steps with unit 'step' (and after the last one). */
  every: number;
  /** Directory of a checkpoint to resume from; it must exist and match `settings`. */
  resume?: string;
  /** The epoch count requested for this run. */
  epochs: number;
  /** The optimiser steps requested instead (--steps; required with unit 'step'): the last checkpoint is written when they are done. */
  steps?: number;
  /** What `every` counts: epochs (default), or optimiser steps (text training, whose steps draw random windows rather than pass over the data). */
  unit?: 'epoch' | 'step';
  /** The settings that define the run: a resumed run must have the same ones. */
  settings: Record<string, unknown>;
}

/** What a run gets from checkpointHooks. */
export interface CheckpointHooks {
  hooks: {
    /** Once the Trainer exists: restores it from the resumed checkpoint, probes the directory. */
    onStart?: (t: Trainer) => void;
    /** After each epoch (unit 'step': after each step): writes a checkpoint when one is due, with the run's own state besides the Trainer's. */
    afterEpoch?: (t: Trainer, runState?: Record<string, unknown>) => void;
  };
  /** The run state of the resumed checkpoint (what afterEpoch was given), if any. */
  resumedRunState?: Record<string, unknown>;
  summary: () => Record<string, unknown>;
  release: () => void;
}

/**
 * The `train` hooks that resume from and write checkpoints: `onStart` restores the
 * Trainer from `resume`, `afterEpoch` writes every `every` epochs (or steps). The checkpoint
 * is read and checked before training starts, so a bad one fails fast (exit 2).
 */
export function checkpointHooks(opts: CheckpointOptions): CheckpointHooks {
  const dir = opts.dir ?? opts.resume;
  const unit = opts.unit ?? 'epoch';
  const done = (t: Trainer | Checkpoint['snapshot']): number => (unit === 'step' ? t.step : t.epoch);
  // the run's last epoch or step, after which a checkpoint is always written
  const isLast = (t: Trainer): boolean => (opts.steps !== undefined ? t.step >= opts.steps : t.epoch === opts.epochs);
  let resumeFrom: Checkpoint | undefined;
  if (opts.resume !== undefined) {
    resumeFrom = readCheckpointFile(opts.resume);
    if (!resumeFrom)
      throw new CheckpointError(`no checkpoint to resume in ${opts.resume} (expected ${checkpointPath(opts.resume)}); run without --resume to start afresh`);
    const diff = settingsMismatch(resumeFrom.settings, opts.settings);
    if (diff.length) throw new CheckpointError(`cannot resume from ${opts.resume}: the run's settings differ (${diff.join('; ')})`);
    const [at, most] = opts.steps !== undefined ? [resumeFrom.snapshot.step, 'steps'] : [resumeFrom.snapshot.epoch, 'epochs'];
    if (at > (opts.steps ?? opts.epochs))
      throw new CheckpointError(`the checkpoint in ${opts.resume} is at ${most.slice(0, -1)} ${at}, beyond --${most} ${opts.steps ?? opts.epochs}`);
  }
  const restore = resumeFrom;
  let written = 0,
    last: number | undefined,
    release = (): void => {};
  const hooks = {
    // once the trainer exists (model and data checked, so bad input leaves no directory
    // behind) and before the first epoch: a directory that cannot take a checkpoint fails now
    onStart: (t: Trainer) => {
      if (restore) {
        try {
          t.restore(restore.snapshot);
        } catch (e) {
          if (e instanceof ParalensError && e.usage) throw new CheckpointError(`cannot resume from ${opts.resume}: ${e.message}`);
          throw e;
        }
      }
      // θ, up to two optimiser slots per parameter, the row order, and the header
      if (dir !== undefined) release = probeCheckpointDir(dir, 3 * t.theta.reduce((n, p) => n + p.data.byteLength, 0) + 8 * t.data.x.batch + 65536);
    },
    afterEpoch:
      dir === undefined
        ? undefined
        : (t: Trainer, runState?: Record<string, unknown>) => {
            const n = done(t);
            if (n % opts.every !== 0 && !isLast(t)) return;
            const snapshot = t.snapshot();
            // only a finite state becomes the last good checkpoint
            const bad = [...snapshot.theta, ...Object.values(snapshot.optimizer.slots).flat()].some((x) => !x.data.every(Number.isFinite));
            if (bad)
              throw new NonFiniteError(
                `the training state became non-finite at ${unit} ${n}; the last good checkpoint${last === undefined ? '' : ` (${unit} ${last})`} stays in ${dir}`,
                t.epoch,
                t.step,
              );
            writeCheckpointFile(dir, encodeCheckpoint(t.model, snapshot, opts.settings, runState));
            written++;
            last = n;
          },
  };
  // What the CLI reports: where training resumed, and the checkpoint it left.
  const summary = (): Record<string, unknown> => ({
    ...(restore ? { resumed_from: done(restore.snapshot) } : {}),
    ...(dir !== undefined ? { checkpoint: dir, [`checkpoint_${unit}`]: last ?? (restore ? done(restore.snapshot) : null), checkpoints_written: written } : {}),
  });
  return { hooks, ...(restore?.runState ? { resumedRunState: restore.runState } : {}), summary, release: () => release() };
}
