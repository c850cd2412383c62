// The flag parser typed by the flag definitions: what a command's run() sees is what its
// definitions declare (checked by the type checker), and the values at run time agree.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseFlags, UsageError } from '../../src/cli/args.js';
import type { Flags, ParsedFlags } from '../../src/cli/args.js';
import { commandGroup, defineCommand } from '../../src/cli/command.js';
import { trainingFlags } from '../../src/cli/training.js';
import { quietIO } from './helpers.js';

const flags = {
  name: { type: 'string', help: 'a name' },
  mode: { type: 'string', help: 'a mode', choices: ['fast', 'slow'], default: 'fast' },
  count: { type: 'int', help: 'a count', default: 3 },
  rate: { type: 'number', help: 'a rate' },
  out: { type: 'string', help: 'a file', output: true },
  verbose: { type: 'boolean', help: 'talk' },
} as const satisfies Flags;

describe('typed flags', () => {
  it('each flag has its definition’s type: a default makes it present, choices are their union, an output flag brings --force', () => {
    type P = ParsedFlags<typeof flags>;
    expectTypeOf<P['name']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<P['mode']>().toEqualTypeOf<'fast' | 'slow'>();
    expectTypeOf<P['count']>().toEqualTypeOf<number>();
    expectTypeOf<P['rate']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<P['verbose']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<P['json']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<P['force']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<ParsedFlags<{ n: { type: 'int'; help: 'n' } }>>().not.toHaveProperty('force');
  });

  it('parses to those types at run time, defaults in place', () => {
    expect(parseFlags([], flags, 'test')).toEqual({ mode: 'fast', count: 3 });
    const p = parseFlags(['--name', 'x', '--count=7', '--rate', '-0.5', '--verbose', '--mode', 'slow', '--out', 'f.txt', '--force'], flags, 'test');
    expect(p).toEqual({ mode: 'slow', count: 7, name: 'x', rate: -0.5, verbose: true, out: 'f.txt', force: true });
    expect(() => parseFlags(['--mode', 'medium'], flags, 'test')).toThrow(UsageError);
    expect(() => parseFlags(['--count', '1.5'], flags, 'test')).toThrow(/--count expects an integer/);
    // --force belongs only to a command that writes a file
    expect(() => parseFlags(['--force'], { n: { type: 'int', help: 'n' } }, 'test')).toThrow(/unknown flag --force/);
  });

  it('a recipe laid over a shared training flag changes its type with its default', () => {
    const f = trainingFlags(['epochs', 'loss', 'lr'], { loss: { default: 'mse' }, lr: { default: undefined, help: 'rate (default: per task)' } });
    type P = ParsedFlags<typeof f>;
    expectTypeOf<P['epochs']>().toEqualTypeOf<number>();
    expectTypeOf<P['loss']>().toEqualTypeOf<string>();
    expectTypeOf<P['lr']>().toEqualTypeOf<number | undefined>();
    expect(parseFlags([], f, 'test')).toEqual({ epochs: 100, loss: 'mse' });
    expect(f.lr.help).toBe('rate (default: per task)');
  });

  it('a command’s run gets the flags parsed by its own definitions; a group only routes', async () => {
    const seen: unknown[] = [];
    const cmd = defineCommand({
      name: 'demo',
      summary: 's',
      usage: 'u',
      description: 'd',
      flags,
      positional: 'name',
      async run(f) {
        expectTypeOf(f.count).toEqualTypeOf<number>();
        seen.push(f);
        return f.count;
      },
    });
    const call = cmd.parse(['--count', '2', '--verbose'], 'demo');
    expect(call.flags).toEqual({ mode: 'fast', count: 2, verbose: true });
    expect(await call.run(quietIO)).toBe(2);
    expect(seen).toEqual([{ mode: 'fast', count: 2, verbose: true }]);
    const group = commandGroup({ name: 'g', summary: 's', usage: 'u', description: 'd', subcommands: [cmd] });
    expect(group.flags).toEqual({});
    expect(() => group.parse([], 'g')).toThrow(/give a subcommand: demo/);
  });
});
