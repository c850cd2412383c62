import type { CliIO } from '../../src/cli/command.js';
import { run } from '../../src/cli/run.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  /** stdout parsed as JSON. */
  json: () => any;
}

/** Runs the CLI in-process and captures stdout, stderr and the exit code; `errIsTTY` (default false) says whether stderr claims to be a terminal. */
export async function cliWith(opts: { errIsTTY?: boolean }, ...argv: string[]): Promise<CliResult> {
  const out: string[] = [],
    err: string[] = [];
  const code = await run(argv, { out: (s) => out.push(s), err: (s) => err.push(s), errIsTTY: opts.errIsTTY ?? false });
  const o = out.join('');
  return { code, out: o, err: err.join(''), json: () => JSON.parse(o) };
}

/** Runs the CLI in-process and captures stdout, stderr and the exit code (stderr not a terminal). */
export function cli(...argv: string[]): Promise<CliResult> {
  return cliWith({}, ...argv);
}

/** An io that discards everything (for running tour sections). */
export const quietIO: CliIO = { out: () => {}, err: () => {}, errIsTTY: false };
