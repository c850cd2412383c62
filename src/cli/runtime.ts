import { backendKinds, backendSummaries, init } from '../tensor/init.js';
import type { InitOptions } from '../tensor/init.js';
import { quote } from '../errors.js';
import { UsageError } from './args.js';
import type { Flags, FlagValues } from './args.js';

/**
 * The flags of every command that computes with tensors: which kernels, how many threads.
 * A command that takes them starts its backend before it runs (src/cli/run.ts).
 */
export const runtimeFlags = {
  backend: { type: 'string', choices: backendKinds(), help: `kernels (${backendSummaries()}); default: wasm where it loads, or PARALENS_BACKEND` },
  threads: { type: 'int', range: 'positive', help: 'threads for large products (default: the cores the runtime reports, or PARALENS_THREADS)' },
} as const satisfies Flags;

/** The backend and threads a command asked for: its flags, else PARALENS_BACKEND / PARALENS_THREADS, else the defaults (undefined). */
export function runtimeChoice(flags: FlagValues, env: Readonly<Record<string, string | undefined>>): InitOptions {
  // run.ts calls this for any command whose flags include runtimeFlags: --backend is text, --threads a number
  let backend = typeof flags.backend === 'string' ? flags.backend : undefined;
  let threads = typeof flags.threads === 'number' ? flags.threads : undefined;
  const envBackend = env['PARALENS_BACKEND'],
    envThreads = env['PARALENS_THREADS'];
  if (backend === undefined && envBackend !== undefined && envBackend !== '') {
    if (!backendKinds().includes(envBackend)) throw new UsageError(`PARALENS_BACKEND must be one of ${backendKinds().join(', ')}; got ${quote(envBackend)}`);
    backend = envBackend;
  }
  if (threads === undefined && envThreads !== undefined && envThreads !== '') {
    const n = Number(envThreads);
    if (!(Number.isInteger(n) && n >= 1)) throw new UsageError(`PARALENS_THREADS must be a positive integer; got ${quote(envThreads)}`);
    threads = n;
  }
  return { ...(backend !== undefined ? { backend } : {}), ...(threads !== undefined ? { threads } : {}) };
}

/**
 * Starts the backend a command asked for. `byDefault`: start one even when nothing was asked
 * (the `paralens` process does; a caller that runs commands in its own process keeps its
 * backend unless a flag or variable names one).
 */
export async function startRuntime(flags: FlagValues, env: Readonly<Record<string, string | undefined>>, byDefault: boolean): Promise<void> {
  const choice = runtimeChoice(flags, env);
  if (byDefault || choice.backend !== undefined || choice.threads !== undefined) await init(choice);
}
