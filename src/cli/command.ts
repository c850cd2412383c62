import { parseFlags, UsageError } from './args.js';
import type { Flags, FlagValues, ParsedFlags } from './args.js';

/** Where a command writes. stdout carries results (with --json exactly one JSON object); stderr carries progress and logs. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress bars are drawn only then, and never with --json). */
  readonly errIsTTY: boolean;
}

/** What `paralens --help` and `paralens NAME --help` say of a command. */
interface About {
  readonly name: string;
  /** One line for `paralens --help`. */
  readonly summary: string;
  /** e.g. 'paralens train --model SPEC --data NAME [flags]' */
  readonly usage: string;
  /** A paragraph for `paralens NAME --help`. */
  readonly description: string;
}

/**
 * A subcommand as it is written: its flag definitions F, and `run`, which gets the flags
 * parsed by them (ParsedFlags<F>: each flag its definition's type) and returns the exit
 * code: 0 done, 1 the work failed, 2 bad usage or input. Throwing a ParalensError is also
 * fine: run.ts maps it to 1 or 2 and prints its message in one line (or as {"error": …}
 * with --json).
 */
export interface CommandSpec<F extends Flags> extends About {
  readonly flags: F;
  /** The string flag a leading positional argument fills (`paralens import FILE.onnx` is `--onnx FILE.onnx`). */
  readonly positional?: keyof F & string;
  run(flags: ParsedFlags<F>, io: CliIO): Promise<number>;
}

/** A command's flags parsed and checked, not yet run: run.ts probes its output files and starts its backend first. */
export interface ParsedCall {
  readonly flags: FlagValues;
  run(io: CliIO): Promise<number>;
}

/** A subcommand of `paralens`, whatever its flags. */
export interface Command extends About {
  readonly flags: Flags;
  readonly positional?: string;
  /** Subcommands (e.g. `topos site`); when present, the first positional argument picks one. */
  readonly subcommands?: readonly Command[];
  /** Parses the command's arguments by its flag definitions (cli/args.ts parseFlags: a UsageError names a bad one). */
  parse(argv: readonly string[], path: string): ParsedCall;
}

/** A command from its spec: `run` gets the flags typed by their definitions. */
export function defineCommand<const F extends Flags>(spec: CommandSpec<F>): Command {
  const { run, ...about } = spec;
  return {
    ...about,
    parse(argv, path) {
      const flags = parseFlags(argv, spec.flags, path);
      return { flags, run: (io) => run(flags, io) };
    },
  };
}

/** A command that only groups subcommands (`paralens topos site|omega|info`). */
export function commandGroup(spec: About & { readonly subcommands: readonly Command[] }): Command {
  return {
    ...spec,
    flags: {},
    parse() {
      throw new UsageError(`${spec.name}: give a subcommand: ${spec.subcommands.map((c) => c.name).join(', ')}`);
    },
  };
}
