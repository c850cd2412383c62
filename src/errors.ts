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
    super('E_UNKNOWN', `unknown ${kind} ${quote(name)}; known: ${known.join(', ')}`);
    this.name = 'UnknownNameError';
  }
}

/**
 * `table[name]` when `name` is one of the table's own keys — never an inherited property such
 * as `valueOf` or `__proto__`, which plain indexing would return for a name typed on the command
 * line — and otherwise an UnknownNameError listing the known names.
 */
export function byName<T>(kind: string, table: Readonly<Record<string, T>>, name: string, known: readonly string[] = Object.keys(table)): T {
  if (!Object.hasOwn(table, name)) throw new UnknownNameError(kind, name, known);
  return table[name]!;
}

/** Throw a RangeArgError unless `ok`. */
export function requireArg(ok: boolean, message: string): asserts ok {
  if (!ok) throw new RangeArgError(message);
}

/**
 * What a piece of work would cost, estimated from its description before anything is built:
 * the dimension or element count it sizes, the bytes it would allocate, and a time proxy
 * (elementary steps). Each field is optional: an estimator fills what it knows.
 */
export interface CostEstimate {
  readonly elements?: number;
  readonly bytes?: number;
  readonly work?: number;
}

/** The cost of doing each of several things. */
export function addCosts(...cs: readonly CostEstimate[]): CostEstimate {
  const sum = (k: keyof CostEstimate): number | undefined => (cs.some((c) => c[k] !== undefined) ? cs.reduce((s, c) => s + (c[k] ?? 0), 0) : undefined);
  return { elements: sum('elements'), bytes: sum('bytes'), work: sum('work') };
}

/**
 * Work refused because its estimate exceeds a stated limit (E_TOO_LARGE, CLI exit 2): the
 * message says what was asked, the estimate and the limit; `estimate` carries the numbers.
 */
export class TooLargeError extends ParalensError {
  readonly estimate: CostEstimate;
  constructor(message: string, estimate: CostEstimate) {
    super('E_TOO_LARGE', message);
    this.name = 'TooLargeError';
    this.estimate = estimate;
  }
}

/** A solve that would need more memory than allowed: refused before it starts, with the estimate. */
export class SolveTooLargeError extends TooLargeError {
  readonly bytes: number;
  constructor(message: string, bytes: number) {
    super(message, { bytes });
    this.name = 'SolveTooLargeError';
    this.bytes = bytes;
  }
}

/**
 * A budget of elementary steps for work whose size shows only while it runs (the sieves of a
 * poset can be exponentially many): `spend` counts, and refuses with a TooLargeError naming
 * `what` once the budget is gone, so such work stops after a bounded time.
 */
export class WorkMeter {
  private spent = 0;
  constructor(
    readonly what: string,
    readonly limit: number,
  ) {}
  spend(n: number): void {
    this.spent += n;
    if (this.spent > this.limit)
      throw new TooLargeError(`${this.what} takes more than ${formatCount(this.limit)} steps (the limit); give a smaller input`, { work: this.spent });
  }
}

/** A count for messages: 1234567 → '1.23e+6' beyond a million, else the integer (or Infinity). */
export function formatCount(n: number): string {
  return n < 1e6 ? String(Math.round(n)) : n.toPrecision(3);
}

/**
 * Raw input as it may appear inside a one-line message: in single quotes, control characters,
 * line separators and lone surrogates escaped (\n, \u0007, …), a character outside the BMP
 * never split, and at most `max` characters kept (then an ellipsis). Every error that quotes
 * what the user gave goes through here, so a message is always one line.
 */
export function quote(text: unknown, max = 80): string {
  return `'${clip(text, max)}'`;
}

/**
 * Text for a one-line message without quotes — a morphism or an expression that input can
 * make arbitrarily long: escaped as `quote` does, at most `max` characters, then an ellipsis.
 */
export function clip(text: unknown, max = 160): string {
  let out = '',
    n = 0;
  for (const ch of String(text)) {
    if (n++ === max) return `${out}…`;
    out += escapeChar(ch);
  }
  return out;
}

const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(ch: string): string {
  const c = ch.codePointAt(0)!;
  // C0 and C1 controls, DEL, the Unicode line and paragraph separators, lone surrogates
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029 || (c >= 0xd800 && c <= 0xdfff)) {
    return ESCAPES[ch] ?? `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return ch;
}

/** Human-readable byte count. */
export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  if (n >= 1024) return `${(n * 1024 ** i).toExponential(2)} B`; // beyond exbibytes: the estimate of something absurd
  return `${n.toFixed(n < 10 ? 1 : 0)} ${units[i]}`;
}
