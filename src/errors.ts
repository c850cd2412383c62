/**
 * Typed errors. Every user-facing error carries a stable `code` (listed in
 * docs/errors.md) so that the CLI can map it to an exit code and a user can look it up.
 *
 * - `ParalensError` with `usage: true` (bad input, bad usage) → CLI exit 2.
 * - `ParalensError` with `usage: false` (the work failed: NaN loss, …) → CLI exit 1.
 */
export class ParalensError extends Error {
  readonly code: string;
  readonly usage: boolean;
  constructor(code: string, message: string, usage = true) {
    super(message);
    this.name = 'ParalensError';
    this.code = code;
    this.usage = usage;
  }
}

/** Two morphisms whose shapes do not compose, or a tensor of the wrong shape. */
export class ShapeError extends ParalensError {
  constructor(message: string) {
    super('E_SHAPE', message);
    this.name = 'ShapeError';
  }
}

/** A model spec string that does not parse, or names an unknown layer. */
export class SpecError extends ParalensError {
  readonly position: number;
  constructor(message: string, position = -1) {
    super('E_SPEC', message);
    this.name = 'SpecError';
    this.position = position;
  }
}

/** An argument outside its allowed range (learning rate ≤ 0, keep probability ∉ (0,1], …). */
export class RangeArgError extends ParalensError {
  constructor(message: string) {
    super('E_RANGE', message);
    this.name = 'RangeArgError';
  }
}

/** Bad data: a CSV row with the wrong number of fields, a non-finite value, an unknown data set. */
export class DataError extends ParalensError {
  constructor(message: string) {
    super('E_DATA', message);
    this.name = 'DataError';
  }
}

/** Training failed: the loss or a gradient became NaN or infinite. */
export class NonFiniteError extends ParalensError {
  readonly epoch: number;
  readonly step: number;
  constructor(message: string, epoch: number, step: number) {
    super('E_NONFINITE', message, false);
    this.name = 'NonFiniteError';
    this.epoch = epoch;
    this.step = step;
  }
}

/**
 * A training setup that a device backend (webgpu) cannot run where its arrays live: a layer,
 * loss or optimiser that computes on host arrays. Refused before anything is allocated on
 * the device; the message names what has no device path.
 */
export class DeviceSupportError extends ParalensError {
  constructor(message: string) {
    super('E_DEVICE', message);
    this.name = 'DeviceSupportError';
  }
}

/** An unknown name (layer, data set, optimiser, loss, group, …); the message lists the known ones. */
export class UnknownNameError extends ParalensError {
  constructor(kind: string, name: string, known: readonly string[]) {
    super('E_UNKNOWN', `unknown ${kind} '${name}'; known: ${known.join(', ')}`);
    this.name = 'UnknownNameError';
  }
}

/** Throw a RangeArgError unless `ok`. */
export function requireArg(ok: boolean, message: string): asserts ok {
  if (!ok) throw new RangeArgError(message);
}

/** A solve that would need more memory than allowed: refused before it starts, with the estimate. */
export class SolveTooLargeError extends ParalensError {
  readonly bytes: number;
  constructor(message: string, bytes: number) {
    super('E_TOO_LARGE', message);
    this.name = 'SolveTooLargeError';
    this.bytes = bytes;
  }
}

/** Human-readable byte count. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}
