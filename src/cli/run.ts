import { clip, didYouMean, ParalensError, quote } from '../errors.js';
import { VERSION } from '../version.js';
import { checkWritableSync } from '../io/node-fs.js';
import { helpText, UsageError, withOutputFlags } from './args.js';
import type { CliIO, Command } from './command.js';
import { commands } from './commands/index.js';
import { runtimeFlags, startRuntime } from './runtime.js';

function mainHelp(): string {
  const rows = commands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n');
  return `paralens ${VERSION}: categorical deep learning — every layer a lens in Para.

usage: paralens COMMAND [flags]     (paralens COMMAND --help for its flags)

commands:
${rows}

Every command takes --json (one JSON object on stdout) and --help.
Exit codes: 0 done; 1 the work failed (e.g. the loss became NaN); 2 bad usage or input.
`;
}

/** How `run` is embedded: the `paralens` process starts the fast backend for every command that computes; a host process keeps its own unless a flag names one. */
export interface RunOptions {
  /** Start the default backend (wasm on every core) for commands that take --backend, even when no flag or variable asks. */
  startBackend?: boolean;
  /** Where PARALENS_BACKEND and PARALENS_THREADS are read (the `paralens` process passes process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Runs one command and returns its exit code; never throws. */
export async function run(argv: readonly string[], io: CliIO, opts: RunOptions = {}): Promise<number> {
  const json = argv.includes('--json');
  try {
    const [name, ...rest] = argv;
    if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
      io.out(mainHelp());
      return name === undefined ? 2 : 0;
    }
    if (name === '--version' || name === '-v') {
      io.out(json ? JSON.stringify({ version: VERSION }) + '\n' : `${VERSION}\n`);
      return 0;
    }
    const cmd = commands.find((c) => c.name === name);
    if (!cmd)
      throw new UsageError(
        `unknown command ${quote(name)}${didYouMean(
          name,
          commands.map((c) => c.name),
        )}; known: ${commands.map((c) => c.name).join(', ')}`,
      );
    return await dispatch(cmd, rest, io, name, opts);
  } catch (e) {
    return report(e, io, json);
  }
}

async function dispatch(cmd: Command, argv: readonly string[], io: CliIO, path: string, opts: RunOptions): Promise<number> {
  if (cmd.subcommands && cmd.subcommands.length) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === '--help' || sub === '-h') {
      const rows = cmd.subcommands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n');
      io.out(`usage: ${cmd.usage}\n\n${cmd.description}\n\nsubcommands:\n${rows}\n`);
      return sub === undefined ? 2 : 0;
    }
    const s = cmd.subcommands.find((c) => c.name === sub);
    if (!s)
      throw new UsageError(
        `${path}: unknown subcommand ${quote(sub)}${didYouMean(
          sub,
          cmd.subcommands.map((c) => c.name),
        )}; known: ${cmd.subcommands.map((c) => c.name).join(', ')}`,
      );
    return dispatch(s, rest, io, `${path} ${sub}`, opts);
  }
  const flagSpecs = withOutputFlags(cmd.flags);
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(helpText(cmd.usage, cmd.description, flagSpecs));
    return 0;
  }
  const args = cmd.positional && argv[0] !== undefined && !argv[0].startsWith('-') ? [`--${cmd.positional}`, ...argv] : argv;
  const call = cmd.parse(args, path);
  // every file the command will write is probed before any work (src/io/node-fs.ts)
  for (const [name, spec] of Object.entries(flagSpecs)) {
    const value = call.flags[name];
    if (!spec.output || value === undefined) continue;
    if (value === '') throw new UsageError(`${path}: --${name} needs a file name`);
    checkWritableSync(String(value), { force: Boolean(call.flags.force) });
  }
  // a command that computes starts its kernels (and their threads) before its first step
  if (Object.keys(runtimeFlags).every((k) => k in cmd.flags)) await startRuntime(call.flags, opts.env ?? {}, opts.startBackend ?? false);
  return call.run(io);
}

/** The longest error message printed (a message can quote a spec or a path of any length). */
const MAX_MESSAGE = 2000;

/** Prints an error in one line (no stack trace) and returns its exit code. */
function report(e: unknown, io: CliIO, json: boolean): number {
  const known = e instanceof ParalensError;
  const code = known ? (e.usage ? 2 : 1) : 1;
  // one line whatever the message quotes (messages quote input through `quote`; this is the backstop)
  const message = clip(e instanceof Error ? e.message : String(e), MAX_MESSAGE);
  if (json) io.out(JSON.stringify({ error: { code: known ? e.code : 'E_INTERNAL', message } }) + '\n');
  io.err(`paralens: ${message}\n`);
  if (!known && e instanceof Error && process.env.PARALENS_DEBUG) io.err(`${e.stack}\n`);
  return code;
}
