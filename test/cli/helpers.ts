import { run } from '../../src/cli/run.js';

/** Runs the CLI in-process and captures stdout, stderr and the exit code. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string; json: () => any }> {
  const out: string[] = [], err: string[] = [];
  const code = await run(argv, { out: (s) => out.push(s), err: (s) => err.push(s), errIsTTY: false });
  const o = out.join('');
  return { code, out: o, err: err.join(''), json: () => JSON.parse(o) };
}
