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

/** An unknown name (layer, data set, optimiser, loss, group, …); the message suggests the nearest known one and lists them all. */
export class UnknownNameError extends ParalensError {
  constructor(kind: string, name: string, known: readonly string[]) {
    super('E_UNKNOWN', `unknown ${kind} ${quote(name)}${didYouMean(name, known)}; known: ${known.join(', ')}`);
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

/**
 * Text from a received file (a class name, a column name, a producer string) as output shows it:
 * unchanged when it is plain — no control characters, at most `max` characters —, else quoted
 * and escaped as `quote` does, so that no file can clear the screen or forge a line of output.
 */
export function shown(text: unknown, max = 60): string {
  const s = String(text);
  return s.length <= max && clip(s, max) === s ? s : quote(s, max);
}

/**
 * Text for a terminal that keeps its lines (generated text): control characters escaped as in
 * `quote`, line breaks and tabs kept.
 */
export function terminalText(text: string): string {
  let out = '';
  for (const ch of text) out += ch === '\n' || ch === '\t' ? ch : escapeChar(ch);
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

/**
 * The known name nearest to a mistyped one, if it is near enough to be the one meant: at most
 * one edit per three characters of the typed name (at least one), where an edit inserts,
 * deletes or changes a character or swaps two neighbours ('trian' is one edit from 'train'),
 * and letter case costs nothing. Between names equally near, the one nearer with case counted,
 * then the one listed first. Undefined when none is near.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  const typed = name.toLowerCase();
  const most = Math.max(1, Math.floor(typed.length / 3));
  let best: string | undefined;
  let bestDistance = most;
  let bestCased = Infinity; // between names equally near, the one nearer with case counted ('tahn': tanh, not Tanh)
  for (const k of known) {
    const d = editDistance(typed, k.toLowerCase(), bestDistance + 1);
    if (d > bestDistance) continue;
    const cased = editDistance(name, k, Infinity);
    if (d < bestDistance || cased < bestCased) [best, bestDistance, bestCased] = [k, d, cased];
  }
  return best === name ? undefined : best;
}

/** ` (did you mean 'dense'?)` when a known name is near the typed one (nearestName), else ''. `prefix` is written before both names (`--` for flags). */
export function didYouMean(name: string, known: readonly string[], prefix = ''): string {
  const near = nearestName(name, known);
  return near === undefined ? '' : ` (did you mean ${prefix ? prefix + near : quote(near)}?)`;
}

/**
 * The optimal-string-alignment distance between a and b (Levenshtein's edits plus the swap of
 * two neighbouring characters), or `cap` as soon as it is certain to be at least `cap`.
 */
function editDistance(a: string, b: string, cap: number): number {
  if (Math.abs(a.length - b.length) >= cap) return cap;
  // three rows of the dynamic programme: before last, last, this
  let before = new Array<number>(b.length + 1).fill(0);
  let last = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1).fill(0);
    row[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const same = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(last[j]! + 1, row[j - 1]! + 1, last[j - 1]! + same);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
      rowMin = Math.min(rowMin, d);
    }
    if (rowMin >= cap) return cap;
    [before, last] = [last, row];
  }
  return Math.min(last[b.length]!, cap);
}
