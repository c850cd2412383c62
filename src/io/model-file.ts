import { parsePreprocessing } from '../data/preprocessing.js';
import type { Preprocessing } from '../data/preprocessing.js';
import { clip, ParalensError, quote, ShapeError } from '../errors.js';
import type { Para } from '../para/para.js';
import { printSpec } from '../catalogue/grammar.js';
import { parseSpec } from '../catalogue/index.js';
import { shapeString } from '../tensor/tensor.js';
import type { Tensor } from '../tensor/tensor.js';
import { VERSION } from '../version.js';
import { parseJsonWithin } from '../json.js';
import { FileFormatError } from './errors.js';
import { encodeSafetensors, readSafetensorsHeader, readTensor } from './safetensors.js';
import type { SafetensorsHeader } from './safetensors.js';

/**
 * A paralens model file: a safetensors file whose tensors are the morphism's parameters
 * θ, named as `Para.params` names them (`0.weight`, `2.bias`, …), and whose `__metadata__`
 * carries what rebuilds the morphism:
 *
 *   format            "paralens"
 *   spec              the spec string (`dense(2,4) >> sigmoid >> dense(4,1)`)
 *   input_shape       the per-sample input shape as JSON (`[1,28,28]`), when the morphism
 *                     has one: a spec like `conv2d(1,4,3) >> flatten` takes any image size
 *   paralens_version  the version that wrote it
 *   training          the training settings as a JSON string (epochs, lr, loss, classes, …)
 *   preprocessing     for a model trained on a file (CSV, NumPy, IDX): how the file's values
 *                     become the model's inputs and targets, as JSON (src/data/preprocessing.ts,
 *                     docs/files.md) — column names, standardisation, one-hot categories,
 *                     classes, pixel scaling
 */
export const METADATA_KEYS = {
  format: 'format',
  spec: 'spec',
  inputShape: 'input_shape',
  version: 'paralens_version',
  training: 'training',
  preprocessing: 'preprocessing',
} as const;

/** Training settings recorded with a model (free-form JSON values). */
export type TrainingSettings = Record<string, unknown>;

export interface ModelFile {
  readonly model: Para;
  readonly theta: Tensor[];
  /** The file's `__metadata__`, verbatim. */
  readonly metadata: Record<string, string>;
  /** `metadata.training` parsed ({} when absent). */
  readonly settings: TrainingSettings;
  /** `metadata.preprocessing` parsed and checked (absent for models trained on built-in data). */
  readonly preprocessing?: Preprocessing;
}

/** What a model file keeps besides the spec and the training settings. */
export interface ModelExtras {
  preprocessing?: Preprocessing;
}

/** Checks that θ fits the morphism: one tensor per parameter, shapes equal, names unique. */
export function checkTheta(model: Para, theta: readonly Tensor[]): void {
  if (theta.length !== model.params.length) {
    throw new ShapeError(`${clip(model)} has ${model.params.length} parameter tensors but ${theta.length} were given`);
  }
  const seen = new Set<string>();
  model.params.forEach((p, i) => {
    if (seen.has(p.name)) throw new FileFormatError(`${clip(model)}: two parameters are named ${quote(p.name)}; a model file needs unique names`);
    seen.add(p.name);
    const t = theta[i]!;
    if (shapeString(t.shape) !== shapeString(p.shape)) {
      throw new ShapeError(`parameter ${quote(p.name)} of ${clip(model)} has shape ${shapeString(p.shape)} but the tensor given is ${shapeString(t.shape)}`);
    }
  });
}

/**
 * The bytes of a model file. The spec must parse back to a morphism with the same
 * parameters (so the file can be loaded); otherwise nothing is written.
 */
export function encodeModel(model: Para, theta: readonly Tensor[], settings: TrainingSettings = {}, extras: ModelExtras = {}): Uint8Array {
  checkTheta(model, theta);
  let spec: string;
  try {
    spec = printSpec(model);
  } catch (e) {
    throw new FileFormatError(`cannot save the model: ${(e as Error).message}`);
  }
  let back: Para;
  try {
    back = parseSpec(spec);
  } catch (e) {
    throw new FileFormatError(`cannot save ${spec}: its spec string does not parse back (${(e as Error).message})`);
  }
  const names = (m: Para): string => m.params.map((p) => `${p.name}${shapeString(p.shape)}`).join(' ');
  if (names(back) !== names(model)) throw new FileFormatError(`cannot save ${spec}: parsing its spec gives different parameters`);
  const metadata = {
    [METADATA_KEYS.format]: 'paralens',
    [METADATA_KEYS.spec]: spec,
    ...(model.dom ? { [METADATA_KEYS.inputShape]: JSON.stringify(model.dom) } : {}),
    [METADATA_KEYS.version]: VERSION,
    [METADATA_KEYS.training]: JSON.stringify(settings),
    ...(extras.preprocessing ? { [METADATA_KEYS.preprocessing]: JSON.stringify(extras.preprocessing) } : {}),
  };
  return encodeSafetensors(
    model.params.map((p, i) => ({ name: p.name, tensor: theta[i]! })),
    metadata,
  );
}

/**
 * The morphism a header describes, checked against the header before any data is read:
 * the spec in `__metadata__` parses (or `model` is given), the tensor names are exactly the
 * parameter names, and every shape is the parameter's shape.
 */
export function modelOfHeader(header: SafetensorsHeader, model?: Para): { model: Para; settings: TrainingSettings; preprocessing?: Preprocessing } {
  const spec = header.metadata[METADATA_KEYS.spec];
  let m = model;
  if (!m) {
    if (spec === undefined)
      throw new FileFormatError(`model file has no ${quote(METADATA_KEYS.spec)} in its __metadata__, so the morphism is unknown; was it written by paralens?`);
    try {
      m = parseSpec(spec);
    } catch (e) {
      if (!(e instanceof ParalensError)) throw e;
      throw new FileFormatError(`model file's spec ${quote(spec)} does not parse: ${e.message}`);
    }
  }
  m = atInputShape(m, header.metadata[METADATA_KEYS.inputShape]);
  const byName = new Map(header.entries.map((e) => [e.name, e]));
  const wanted = new Set(m.params.map((p) => p.name));
  const missing = m.params.filter((p) => !byName.has(p.name)).map((p) => p.name);
  const extra = header.entries.filter((e) => !wanted.has(e.name)).map((e) => e.name);
  if (missing.length || extra.length) {
    const parts = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(Boolean);
    throw new FileFormatError(`model file's tensors do not match the parameters of ${clip(m)}: ${clip(parts.join('; '), 400)}`);
  }
  for (const p of m.params) {
    const e = byName.get(p.name)!;
    if (shapeString(e.shape) !== shapeString(p.shape)) {
      throw new FileFormatError(`model file's tensor ${quote(p.name)} has shape ${shapeString(e.shape)} but ${clip(m)} needs ${shapeString(p.shape)}`);
    }
  }
  let settings: TrainingSettings = {};
  const raw = header.metadata[METADATA_KEYS.training];
  if (raw !== undefined) {
    const v = parseJsonWithin(raw);
    if (!v.ok || typeof v.value !== 'object' || v.value === null || Array.isArray(v.value))
      throw new FileFormatError(`model file's __metadata__.${METADATA_KEYS.training} is not a JSON object (${v.ok ? 'another value' : clip(v.reason, 160)})`);
    settings = v.value as TrainingSettings;
  }
  const pre = header.metadata[METADATA_KEYS.preprocessing];
  let preprocessing: Preprocessing | undefined;
  if (pre !== undefined) {
    try {
      preprocessing = parsePreprocessing(pre);
    } catch (e) {
      if (!(e instanceof ParalensError)) throw e;
      throw new FileFormatError(`model file's __metadata__.${METADATA_KEYS.preprocessing}: ${e.message}`);
    }
  }
  return { model: m, settings, ...(preprocessing ? { preprocessing } : {}) };
}

/** The morphism fixed to the recorded input shape (unchanged when none is recorded or it already has one). */
function atInputShape(m: Para, raw: string | undefined): Para {
  if (raw === undefined || m.dom) return m;
  const parsed = parseJsonWithin(raw, { maxDepth: 1, maxMembers: 64 });
  const shape = parsed.ok ? parsed.value : undefined;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new FileFormatError(`model file's __metadata__.${METADATA_KEYS.inputShape} must be a JSON list of sizes like [1,28,28], got ${quote(raw)}`);
  }
  try {
    return m.at(shape as number[]);
  } catch (e) {
    if (!(e instanceof ParalensError)) throw e;
    throw new FileFormatError(`model file's input_shape ${quote(raw)} does not fit ${clip(m)}: ${e.message}`);
  }
}

/** θ in the order of `model.params`, read from a data section whose header was validated. */
export function thetaOfData(header: SafetensorsHeader, model: Para, data: Uint8Array): Tensor[] {
  const byName = new Map(header.entries.map((e) => [e.name, e]));
  return model.params.map((p) => {
    const t = readTensor(byName.get(p.name)!, data);
    // a trained model's weights are finite: NaN or ±Infinity is a damaged file, not a model
    const i = t.data.findIndex((v) => !Number.isFinite(v));
    if (i >= 0) throw new FileFormatError(`model file's tensor ${quote(p.name)} holds ${t.data[i]} at index ${i}; a model's weights must be finite`);
    return t;
  });
}

/** Decodes a model file held in memory: header validated, checked against the spec, then θ read. */
export function decodeModel(bytes: Uint8Array, opts: { model?: Para } = {}): ModelFile {
  const header = readSafetensorsHeader(bytes);
  const { model, settings, preprocessing } = modelOfHeader(header, opts.model);
  const theta = thetaOfData(header, model, bytes.subarray(header.dataStart));
  return { model, theta, metadata: { ...header.metadata }, settings, ...(preprocessing ? { preprocessing } : {}) };
}
