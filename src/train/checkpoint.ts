import { clip, ParalensError, quote } from '../errors.js';
import { parseJsonWithin } from '../json.js';
import { FileFormatError } from '../io/errors.js';
import { encodeSafetensors, readSafetensorsHeader, readTensor } from '../io/safetensors.js';
import type { NamedTensor, SafetensorsHeader } from '../io/safetensors.js';
import type { OptimizerState } from '../optim/optimizer.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';
import { VERSION } from '../version.js';
import type { TrainerSnapshot } from './trainer.js';

/**
 * Checkpoints as bytes (browser-safe; the CLI writes them to disk in src/cli/checkpoint.ts).
 *
 * A checkpoint is a safetensors file holding a Trainer's whole state after an epoch:
 *
 *   tensors     theta/<i>            the parameters, in `Para.params` order
 *               optimizer/<slot>/<i> the optimiser's state tensors (momenta, moments, …)
 *               order                the row permutation (float64: exact for integers < 2^53)
 *   metadata    format "paralens-checkpoint", spec, input_shape, epoch, step,
 *               rng (the xoshiro128** state words), optimizer ({name, t, slots}),
 *               training (the settings that must match on resume), run_state (optional:
 *               what a run keeps besides the Trainer, e.g. text training's window sampler),
 *               checksum (FNV-1a of metadata, tensor table and data), paralens_version
 *
 * Restoring it into a Trainer of the same model, data and settings and training on gives
 * the same bits as an uninterrupted run (test/reliability/kill-resume.full.test.ts).
 */
export const CHECKPOINT_FORMAT = 'paralens-checkpoint';

/** A checkpoint that cannot be used: missing, from another model, or from other settings. CLI exit 2. */
export class CheckpointError extends ParalensError {
  constructor(message: string) {
    super('E_CHECKPOINT', message);
    this.name = 'CheckpointError';
  }
}

/** What a checkpoint holds besides the trainer state: the model and its training settings. */
export interface Checkpoint {
  readonly spec: string;
  readonly inputShape?: number[];
  /** Settings that define the run (data, loss, optimiser, lr, batch, seed, …); compared on resume. */
  readonly settings: Record<string, unknown>;
  readonly snapshot: TrainerSnapshot;
  /** What the run keeps besides the Trainer (text training: the window sampler's RNG state, its running loss sums); JSON. */
  readonly runState?: Record<string, unknown>;
}

/** FNV-1a (32-bit) of a byte range, continuing from `h`: cheap, and any flipped byte changes it. */
export function fnv1a(bytes: Uint8Array, h = 0x811c9dc5): number {
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return h >>> 0;
}

/**
 * The checksum recorded as `checksum`: FNV-1a over the metadata (without the checksum,
 * keys sorted), the tensor table (names, dtypes, shapes, offsets) and the data section.
 * So a changed byte anywhere that still parses is caught, not just one in the data.
 */
function checksum(header: SafetensorsHeader, bytes: Uint8Array): string {
  const { checksum: _, ...meta } = header.metadata;
  const table = JSON.stringify([
    Object.entries(meta).sort(([a], [b]) => (a < b ? -1 : 1)),
    header.entries.map((e) => [e.name, e.dtype, e.shape, e.begin, e.end]),
  ]);
  return fnv1a(bytes.subarray(header.dataStart), fnv1a(new TextEncoder().encode(table)))
    .toString(16)
    .padStart(8, '0');
}

/** The bytes of a checkpoint of `snapshot` (and of the run's own `runState`), taken while training `model` with `settings`. */
export function encodeCheckpoint(model: Para, snapshot: TrainerSnapshot, settings: Record<string, unknown>, runState?: Record<string, unknown>): Uint8Array {
  const s = snapshot;
  const tensors: NamedTensor[] = s.theta.map((t, i) => ({ name: `theta/${i}`, tensor: t }));
  const slots: Record<string, number> = {};
  for (const [slot, ts] of Object.entries(s.optimizer.slots)) {
    slots[slot] = ts.length;
    ts.forEach((t, i) => tensors.push({ name: `optimizer/${slot}/${i}`, tensor: t }));
  }
  tensors.push({ name: 'order', tensor: Tensor.of(Float64Array.from(s.order), [s.order.length], 'float64') });
  const metadata: Record<string, string> = {
    format: CHECKPOINT_FORMAT,
    spec: String(model),
    ...(model.dom ? { input_shape: JSON.stringify(model.dom) } : {}),
    epoch: String(s.epoch),
    step: String(s.step),
    rng: JSON.stringify(s.rng.map((w) => w >>> 0)),
    optimizer: JSON.stringify({ name: s.optimizer.name, t: s.optimizer.t, slots }),
    training: JSON.stringify(settings),
    ...(runState ? { run_state: JSON.stringify(runState) } : {}),
    paralens_version: VERSION,
  };
  const unsigned = encodeSafetensors(tensors, metadata);
  // Offsets and data do not depend on the metadata, so the checksum can go in a second pass.
  return encodeSafetensors(tensors, { ...metadata, checksum: checksum(readSafetensorsHeader(unsigned), unsigned) });
}

const bad = (what: string): never => {
  throw new FileFormatError(`checkpoint ${what}`);
};

function parseJson(metadata: Record<string, string>, key: string): unknown {
  const text = metadata[key];
  if (text === undefined) bad(`has no ${quote(key)} in its metadata`);
  const parsed = parseJsonWithin(text!);
  return parsed.ok ? parsed.value : bad(`metadata ${quote(key)} is not JSON paralens reads (${clip(parsed.reason, 120)}): ${quote(text, 40)}`);
}

function count(metadata: Record<string, string>, key: string): number {
  const v = Number(metadata[key]);
  if (!(Number.isSafeInteger(v) && v >= 0)) bad(`metadata ${quote(key)} must be a non-negative integer, got ${quote(metadata[key])}`);
  return v;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a checkpoint's bytes, validating everything (format, checksum, metadata, that every
 * tensor is present) before returning; any defect is a FileFormatError (E_FORMAT).
 */
export function decodeCheckpoint(bytes: Uint8Array): Checkpoint {
  const header = readSafetensorsHeader(bytes);
  const metadata = header.metadata;
  if (metadata.format !== CHECKPOINT_FORMAT)
    bad(`format is ${quote(metadata.format)}, expected '${CHECKPOINT_FORMAT}' (is this a model file rather than a checkpoint?)`);
  const sum = checksum(header, bytes);
  if (metadata.checksum !== sum) bad(`checksum ${sum} does not match the recorded ${metadata.checksum}: the file is corrupt`);
  const data = bytes.subarray(header.dataStart);
  const tensors = new Map(header.entries.map((e) => [e.name, readTensor(e, data)] as const));
  const spec = metadata.spec ?? bad(`has no 'spec' in its metadata`);
  const inputShape = metadata.input_shape === undefined ? undefined : parseJson(metadata, 'input_shape');
  if (inputShape !== undefined && !(Array.isArray(inputShape) && inputShape.every((d) => Number.isSafeInteger(d) && d > 0)))
    bad(`input_shape must be a list of positive integers`);
  const rng = parseJson(metadata, 'rng');
  if (!(Array.isArray(rng) && rng.length === 4 && rng.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32))) bad(`rng must be 4 unsigned 32-bit words`);
  const opt = parseJson(metadata, 'optimizer');
  if (!(isRecord(opt) && typeof opt.name === 'string' && Number.isSafeInteger(opt.t) && isRecord(opt.slots))) bad(`optimizer must be {name, t, slots}`);
  const o = opt as { name: string; t: number; slots: Record<string, unknown> };
  const settings = parseJson(metadata, 'training');
  if (!isRecord(settings)) bad(`training settings must be a JSON object`);
  const runState = metadata.run_state === undefined ? undefined : parseJson(metadata, 'run_state');
  if (runState !== undefined && !isRecord(runState)) bad(`run_state must be a JSON object`);
  const take = (name: string): Tensor => tensors.get(name) ?? bad(`is missing tensor ${quote(name)}`);
  const theta: Tensor[] = [];
  for (let i = 0; tensors.has(`theta/${i}`); i++) theta.push(take(`theta/${i}`));
  const slots: OptimizerState['slots'] = {};
  for (const [slot, n] of Object.entries(o.slots)) {
    if (!(Number.isSafeInteger(n) && (n as number) >= 0 && (n as number) <= tensors.size))
      bad(`optimizer slot ${quote(slot)} claims ${String(n)} tensors; the file holds ${tensors.size}`);
    slots[slot] = Array.from({ length: n as number }, (_, i) => take(`optimizer/${slot}/${i}`));
  }
  const orderT = take('order');
  const order = new Int32Array(orderT.size);
  for (let i = 0; i < order.length; i++) {
    const v = orderT.data[i]!;
    if (!(Number.isInteger(v) && v >= 0 && v < order.length)) bad(`order holds ${v}, not a row index below ${order.length}`);
    order[i] = v;
  }
  const snapshot: TrainerSnapshot = {
    epoch: count(metadata, 'epoch'),
    step: count(metadata, 'step'),
    theta,
    optimizer: { name: o.name, t: o.t, slots },
    rng: rng as number[],
    order,
  };
  return {
    spec,
    inputShape: inputShape as number[] | undefined,
    settings: settings as Record<string, unknown>,
    snapshot,
    ...(runState ? { runState: runState as Record<string, unknown> } : {}),
  };
}

/**
 * The settings of `saved` that differ from `current` (keys of either), as readable
 * `key: saved → current` strings; empty when the run can resume.
 */
export function settingsMismatch(saved: Record<string, unknown>, current: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(saved), ...Object.keys(current)])].sort();
  return keys
    .filter((k) => JSON.stringify(saved[k]) !== JSON.stringify(current[k]))
    .map((k) => `${clip(k, 40)}: ${clip(JSON.stringify(saved[k]), 80)} in the checkpoint, ${clip(JSON.stringify(current[k]), 80)} now`);
}
