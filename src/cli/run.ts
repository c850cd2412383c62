import { ParalensError } from '../errors.js';
import { VERSION } from '../version.js';
import { helpText, parseFlags, UsageError } from './args.js';
import type { CliIO, Command } from './command.js';
import { commands } from './commands/index.js';

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

/** Runs one command and returns its exit code; never throws. */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
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
    if (!cmd) throw new UsageError(`unknown command '${name}'; known: ${commands.map((c) => c.name).join(', ')}`);
    return await dispatch(cmd, rest, io, name);
  } catch (e) {
    return report(e, io, json);
  }
}

async function dispatch(cmd: Command, argv: readonly string[], io: CliIO, path: string): Promise<number> {
  if (cmd.subcommands && cmd.subcommands.length) {
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === '--help' || sub === '-h') {
      const rows = cmd.subcommands.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n');
      io.out(`usage: ${cmd.usage}\n\n${cmd.description}\n\nsubcommands:\n${rows}\n`);
      return sub === undefined ? 2 : 0;
    }
    const s = cmd.subcommands.find((c) => c.name === sub);
    if (!s) throw new UsageError(`${path}: unknown subcommand '${sub}'; known: ${cmd.subcommands.map((c) => c.name).join(', ')}`);
    return dispatch(s, rest, io, `${path} ${sub}`);
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    io.out(helpText(cmd.usage, cmd.description, cmd.flags));
    return 0;
  }
  const args = cmd.positional && argv[0] !== undefined && !argv[0].startsWith('-') ? [`--${cmd.positional}`, ...argv] : argv;
  return cmd.run(parseFlags(args, cmd.flags, path), io);
}

/** Prints an error in one line (no stack trace) and returns its exit code. */
export function report(e: unknown, io: CliIO, json: boolean): number {
  const known = e instanceof ParalensError;
  const code = known ? (e.usage ? 2 : 1) : 1;
  const message = e instanceof Error ? e.message : String(e);
  if (json) io.out(JSON.stringify({ error: { code: known ? e.code : 'E_INTERNAL', message } }) + '\n');
  io.err(`paralens: ${message}\n`);
  if (!known && e instanceof Error && process.env.PARALENS_DEBUG) io.err(`${e.stack}\n`);
  return code;
}
