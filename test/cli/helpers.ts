import type { CliIO } from '../../src/cli/command.js';
import { run } from '../../src/cli/run.js';
import { backend, setBackend } from '../../src/tensor/registry.js';

export interface CliResult {
  code: number;
  out: string;
  err: string;
  /** stdout parsed as JSON. */
  json: () => any;
}

/**
 * Runs the CLI in-process and captures stdout, stderr and the exit code; `errIsTTY` (default
 * false) says whether stderr claims to be a terminal. The backend a `--backend` flag chose is
 * put back afterwards, as the end of a `paralens` process would: the next run (in this file or
 * the next one the worker runs) starts from the backend it had.
 */
export async function cliWith(opts: { errIsTTY?: boolean }, ...argv: string[]): Promise<CliResult> {
  const out: string[] = [],
    err: string[] = [];
  const previous = backend();
  const code = await run(argv, { out: (s) => out.push(s), err: (s) => err.push(s), errIsTTY: opts.errIsTTY ?? false }).finally(() => setBackend(previous));
  const o = out.join('');
  return { code, out: o, err: err.join(''), json: () => JSON.parse(o) };
}

/** Runs the CLI in-process and captures stdout, stderr and the exit code (stderr not a terminal). */
export function cli(...argv: string[]): Promise<CliResult> {
  return cliWith({}, ...argv);
}

/** An io that discards everything (for running tour sections). */
export const quietIO: CliIO = { out: () => {}, err: () => {}, errIsTTY: false };
