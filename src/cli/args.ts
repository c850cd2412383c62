import { didYouMean, ParalensError, quote } from '../errors.js';

/** Bad command-line usage: exit code 2, one clear line. */
export class UsageError extends ParalensError {
  constructor(message: string) {
    super('E_USAGE', message);
    this.name = 'UsageError';
  }
}

export type FlagType = 'string' | 'number' | 'int' | 'boolean';

export interface FlagSpec {
  readonly type: FlagType;
  readonly help: string;
  readonly default?: string | number | boolean;
  /** Restricts a string flag to these values. */
  readonly choices?: readonly string[];
  /** For number/int flags: must be > 0 (positive), ≥ 0 (nonnegative), in [0, 1] (unit) or in [0, 1) (unit-open). */
  readonly range?: 'positive' | 'nonnegative' | 'unit' | 'unit-open';
  /** For number/int flags: must be ≥ min. */
  readonly min?: number;
  /** A one-letter alias: `-o FILE` for `--out FILE`. */
  readonly short?: string;
  /**
   * A file the command writes: probed before the command runs (src/io/node-fs.ts: the directory
   * writable, the target a regular file or absent), and the command gains `--force`.
   */
  readonly output?: boolean;
}

export type Flags = { readonly [name: string]: FlagSpec };

/** What a flag of definition S holds once parsed: its text (one of its choices when they are literals), a number ('number', 'int'), or true/false. */
export type FlagValue<S extends FlagSpec> = S extends { readonly type: 'boolean' }
  ? boolean
  : S extends { readonly type: 'string' }
    ? S extends { readonly choices: readonly (infer C extends string)[] }
      ? C
      : string
    : number;

/** Flags every command takes. */
export const commonFlags = {
  json: { type: 'boolean', help: 'print exactly one JSON object on stdout; progress and logs go to stderr' },
  quiet: { type: 'boolean', help: 'no progress line and no logs on stderr (errors still go there)' },
  help: { type: 'boolean', help: 'show this help' },
} as const satisfies Flags;

/** The names of F's output flags (never when it has none). */
type OutputFlag<F extends Flags> = { [K in keyof F]: F[K] extends { readonly output: true } ? K : never }[keyof F];

/** A command's flags as parsed: its own, the common ones, and --force when it writes a file. */
export type AllFlags<F extends Flags> = F & typeof commonFlags & ([OutputFlag<F>] extends [never] ? unknown : { readonly force: typeof forceFlag });

/**
 * The parsed flags of a command whose flag definitions are F: each flag holds the value its
 * definition's type gives (FlagValue), and is undefined when it was not given, unless it has
 * a default.
 */
export type ParsedFlags<F extends Flags> = {
  readonly [K in keyof AllFlags<F>]: FlagValue<AllFlags<F>[K]> | (AllFlags<F>[K] extends { readonly default: {} } ? never : undefined);
};

/** Parsed flags whatever their definitions: what run.ts reads before a command runs (output files, the backend). */
export type FlagValues = { readonly [name: string]: string | number | boolean | undefined };

// linear in the text: `\d+\.?\d*` backtracks quadratically on a long run of digits
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/;

/**
 * A number written in decimal (`3`, `-0.5`, `1e-3`), or undefined: not `0x10`, `0b11`, `0o7`,
 * `1_000`, `Infinity`, nor an empty or padded string, all of which Number() would accept.
 */
export function parseDecimal(text: string): number | undefined {
  return DECIMAL.test(text) ? Number(text) : undefined;
}

/** `--force`, which every command that writes a file takes. */
export const forceFlag = {
  type: 'boolean',
  help: 'replace an output that is a symbolic link (the link, never what it points to), a device or a read-only file',
} as const satisfies FlagSpec;

/** A command's flags with `--force` when one of them is an output file. */
export function withOutputFlags(flags: Flags): Flags {
  return Object.values(flags).some((f) => f.output) ? { ...flags, force: forceFlag } : flags;
}

/**
 * Parses `--name value`, `--name=value` and boolean `--name`. Unknown flags, missing
 * values and values of the wrong type throw UsageError naming the flag and what it expects.
 */
export function parseFlags<F extends Flags>(argv: readonly string[], flags: F, command: string): ParsedFlags<F> {
  const all: Flags = { ...commonFlags, ...withOutputFlags(flags) };
  const out: Record<string, string | number | boolean> = {};
  for (const [k, s] of Object.entries(all)) if (s.default !== undefined) out[k] = s.default;
  const shortNames = new Map<string, string>(Object.entries(all).flatMap(([k, s]): [string, string][] => (s.short ? [[`-${s.short}`, k]] : [])));
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i]!;
    const long = shortNames.get(a);
    if (long) a = `--${long}`;
    else if (!a.startsWith('--')) throw new UsageError(`${command}: unexpected argument ${quote(a)} (flags are --name value)`);
    const eq = a.indexOf('=');
    const name = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const spec = Object.hasOwn(all, name) ? all[name] : undefined; // never an inherited property (--constructor)
    if (!spec)
      throw new UsageError(
        `${command}: unknown flag --${name}${didYouMean(name, Object.keys(all), '--')}; known: ${Object.keys(all)
          .map((k) => `--${k}`)
          .join(', ')}`,
      );
    if (spec.type === 'boolean') {
      if (eq >= 0) {
        const v = a.slice(eq + 1);
        if (v !== 'true' && v !== 'false') throw new UsageError(`${command}: --${name} takes no value or true/false, got ${quote(v)}`);
        out[name] = v === 'true';
      } else out[name] = true;
      continue;
    }
    let raw: string | undefined;
    if (eq >= 0) raw = a.slice(eq + 1);
    else {
      raw = argv[i + 1];
      if (raw === undefined || (raw.startsWith('--') && raw.length > 2)) throw new UsageError(`${command}: --${name} needs a value (${spec.help})`);
      i++;
    }
    out[name] = convert(command, name, spec, raw);
  }
  // every value is its definition's type (convert checked it) and every default is in place:
  // what ParsedFlags<F> describes
  return out as ParsedFlags<F>;
}

function convert(command: string, name: string, spec: FlagSpec, raw: string): string | number {
  if (spec.type === 'string') {
    if (spec.choices && !spec.choices.includes(raw)) {
      throw new UsageError(`${command}: --${name} must be one of ${spec.choices.join(', ')}; got ${quote(raw)}`);
    }
    return raw;
  }
  const v = parseDecimal(raw);
  if (v === undefined || !Number.isFinite(v)) throw new UsageError(`${command}: --${name} expects a number written in decimal, got ${quote(raw)}`);
  if (spec.type === 'int' && !Number.isSafeInteger(v)) throw new UsageError(`${command}: --${name} expects an integer (at most 2^53), got ${quote(raw)}`);
  if (spec.range === 'positive' && !(v > 0)) throw new UsageError(`${command}: --${name} must be > 0, got ${raw}`);
  if (spec.range === 'nonnegative' && !(v >= 0)) throw new UsageError(`${command}: --${name} must be ≥ 0, got ${raw}`);
  if (spec.range === 'unit' && !(v >= 0 && v <= 1)) throw new UsageError(`${command}: --${name} must be in [0, 1], got ${raw}`);
  if (spec.range === 'unit-open' && !(v >= 0 && v < 1)) throw new UsageError(`${command}: --${name} must be in [0, 1), got ${raw}`);
  if (spec.min !== undefined && !(v >= spec.min)) throw new UsageError(`${command}: --${name} must be ≥ ${spec.min}, got ${raw}`);
  return v;
}

/** The help text of a command: usage line, description, flags with defaults. */
export function helpText(usage: string, description: string, flags: Flags): string {
  const all: Flags = { ...flags, ...commonFlags };
  const rows = Object.entries(all).map(([k, s]) => {
    const left = `  --${k}${s.short ? `, -${s.short}` : ''}${s.type === 'boolean' ? '' : ` ${s.type === 'string' ? (s.choices ? s.choices.join('|') : 'VALUE') : 'N'}`}`;
    const def = s.default !== undefined && s.type !== 'boolean' ? ` (default: ${s.default})` : '';
    return `${left.padEnd(34)} ${s.help}${def}`;
  });
  return `usage: ${usage}\n\n${description}\n\nflags:\n${rows.join('\n')}\n`;
}
