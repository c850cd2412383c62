import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, cliWith } from './helpers.js';
import { commands } from '../../src/cli/commands/index.js';
import type { Command } from '../../src/cli/command.js';
import { VERSION } from '../../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'paralens-manners-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every leaf command with the argv prefix that reaches it. */
function leaves(cs: readonly Command[], prefix: string[] = []): [string[], Command][] {
  return cs.flatMap((c) => (c.subcommands?.length ? leaves(c.subcommands, [...prefix, c.name]) : [[[...prefix, c.name], c] as [string[], Command]]));
}

describe('CLI manners', () => {
  it('paralens --version prints the package version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const r = await cli('--version');
    expect(r.code).toBe(0);
    expect(r.out).toBe(`${VERSION}\n`);
    expect(JSON.parse((await cli('--version', '--json')).out)).toEqual({ version: VERSION });
  });

  for (const name of ['train', 'tour', 'predict', 'export']) {
    it(`paralens ${name} --help lists every flag, with defaults`, async () => {
      const cmd = commands.find((c) => c.name === name)!;
      expect(cmd.summary).not.toMatch(/not yet available/);
      const r = await cli(name, '--help');
      expect(r.code).toBe(0);
      expect(r.out).toContain(`usage: ${cmd.usage}`);
      for (const [flag, spec] of Object.entries({ ...cmd.flags, json: {}, help: {} })) {
        expect(r.out).toMatch(new RegExp(`--${flag}\\b`));
        const d = (spec as { default?: unknown }).default;
        if (d !== undefined && typeof d !== 'boolean') expect(r.out).toMatch(new RegExp(`--${flag} .*\\(default: ${String(d).replace('.', '\\.')}\\)`));
      }
    });
  }

  it('every command answers --help with exit 0 and names its flags', async () => {
    for (const [argv, cmd] of leaves(commands)) {
      const r = await cli(...argv, '--help');
      expect(r.code, argv.join(' ')).toBe(0);
      for (const flag of Object.keys(cmd.flags)) expect(r.out, argv.join(' ')).toContain(`--${flag}`);
    }
  });

  it('flag names are consistent: kebab-case, and one name has one type across commands', () => {
    const types = new Map<string, Set<string>>();
    for (const [argv, cmd] of leaves(commands)) {
      for (const [flag, spec] of Object.entries(cmd.flags)) {
        expect(flag, argv.join(' ')).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
        if (!types.has(flag)) types.set(flag, new Set());
        types.get(flag)!.add(spec.type);
      }
    }
    const mixed = [...types].filter(([, t]) => t.size > 1).map(([f, t]) => `--${f}: ${[...t].join('/')}`);
    expect(mixed).toEqual([]);
    // the names this area introduces are the ones train uses
    expect(commands.find((c) => c.name === 'train')!.flags.save).toBeDefined();
    for (const name of ['predict', 'export']) expect(commands.find((c) => c.name === name)!.flags.load).toBeDefined();
  });

  it('unknown flags and commands are exit 2 with one line', async () => {
    for (const args of [['train', '--nope'], ['nope'], ['predict', '--load'], ['export', '--load', 'x.safetensors']]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('a name that is an inherited property of a plain object (valueOf, __proto__, constructor) is unknown, not looked up', async () => {
    const xor = ['train', '--model', 'dense(2,1)', '--data', 'xor', '--epochs', '1'];
    for (const [args, want] of [
      [[...xor, '--optimizer', 'valueOf'], /unknown optimizer 'valueOf'/],
      [[...xor, '--loss', '__proto__'], /unknown loss '__proto__'/],
      [['train', '--model', 'dense(2,1)', '--data', 'constructor'], /unknown data set 'constructor'/],
      [[...xor, '--constructor', '3'], /unknown flag --constructor/],
      [[...xor, '--__proto__', '3'], /unknown flag --__proto__/],
      [['train', '--model', 'reparam(dense(2,1),toString(1))', '--data', 'xor'], /unknown parameter map 'toString'/],
    ] as const) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err, args.join(' ')).toMatch(want);
      expect(r.err.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  const trainArgs = ['train', '--model', 'dense(2,3) >> tanh >> dense(3,1)', '--data', 'xor', '--epochs', '50'];

  it('progress goes to stderr when it is a terminal, and is silent otherwise or with --json', async () => {
    const tty = await cliWith({ errIsTTY: true }, ...trainArgs);
    expect(tty.code).toBe(0);
    expect(tty.err).toMatch(/train [█░]+ 50\/50/);
    expect(tty.out).not.toMatch(/█/);
    expect((await cli(...trainArgs)).err).toBe('');
    const json = await cliWith({ errIsTTY: true }, ...trainArgs, '--json');
    expect(json.err).toBe('');
    expect(json.out.trim().split('\n')).toHaveLength(1);
    expect(() => JSON.parse(json.out)).not.toThrow();
  });

  it('predict draws its progress on a terminal too, never on stdout', async () => {
    const file = join(dir, 'm.safetensors');
    expect((await cli(...trainArgs, '--save', file)).code).toBe(0);
    const r = await cliWith({ errIsTTY: true }, 'predict', '--load', file, '--input', '0,1;1,1');
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/predict [█░]+ 2\/2/);
    expect(r.out).not.toMatch(/█/);
  });

  it('--json errors are one JSON object on stdout', async () => {
    const r = await cli('predict', '--load', join(dir, 'missing.safetensors'), '--input', '0,0', '--json');
    expect(r.code).toBe(2);
    expect(JSON.parse(r.out).error.message).toMatch(/cannot open model file/);
  });
});
