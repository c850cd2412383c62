import type { Flags, ParsedFlags } from './args.js';

/** Where a command writes. stdout carries results (with --json exactly one JSON object); stderr carries progress and logs. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  /** Whether stderr is a terminal (progress bars are drawn only then, and never with --json). */
  readonly errIsTTY: boolean;
}

/**
 * A subcommand of `paralens`. `run` returns the exit code: 0 done, 1 the work failed,
 * 2 bad usage or input. Throwing a ParalensError is also fine: main maps it to 1 or 2
 * and prints its message in one line (or as {"error": …} with --json).
 */
export interface Command {
  readonly name: string;
  /** One line for `paralens --help`. */
  readonly summary: string;
  /** e.g. 'paralens train --model SPEC --data NAME [flags]' */
  readonly usage: string;
  /** A paragraph for `paralens NAME --help`. */
  readonly description: string;
  readonly flags: Flags;
  /** The string flag a leading positional argument fills (`paralens import FILE.onnx` is `--onnx FILE.onnx`). */
  readonly positional?: string;
  /** Subcommands (e.g. `topos site`); when present, the first positional argument picks one. */
  readonly subcommands?: readonly Command[];
  run(flags: ParsedFlags, io: CliIO): Promise<number>;
}
