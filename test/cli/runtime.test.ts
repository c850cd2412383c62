// The backend a command runs on: --backend / --threads and their variables, the library's
// init(), and the real `paralens` process (relaxed SIMD without a launcher flag, a thread per core).
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runtimeChoice } from '../../src/cli/runtime.js';
import { backendInfo, backendKinds, init } from '../../src/tensor/init.js';
import { backend, setBackend } from '../../src/tensor/registry.js';
import { buildCli } from '../reliability/build.js';
import { cli } from './helpers.js';
import { run } from '../../src/cli/run.js';

afterAll(() => void setBackend('js'));

describe('runtimeChoice: flags over PARALENS_BACKEND / PARALENS_THREADS', () => {
  it('reads the variables when no flag is given, and the flags win', () => {
    expect(runtimeChoice({}, {})).toEqual({});
    expect(runtimeChoice({}, { PARALENS_BACKEND: 'js', PARALENS_THREADS: '3' })).toEqual({ backend: 'js', threads: 3 });
    expect(runtimeChoice({ backend: 'wasm', threads: 1 }, { PARALENS_BACKEND: 'js', PARALENS_THREADS: '3' })).toEqual({ backend: 'wasm', threads: 1 });
  });

  it.each([
    [{ PARALENS_THREADS: '0' }, /PARALENS_THREADS must be a positive integer; got '0'/],
    [{ PARALENS_THREADS: '1.5' }, /PARALENS_THREADS must be a positive integer/],
    [{ PARALENS_BACKEND: 'cuda' }, /PARALENS_BACKEND must be one of js, wasm, webgpu; got 'cuda'/],
  ])('refuses %o with a usage error', (env, message) => {
    expect(() => runtimeChoice({}, env)).toThrow(message);
  });
});

describe('init()', () => {
  it('starts wasm on every core the runtime reports, with its workers already running', async () => {
    const b = await init();
    expect(backend()).toBe(b);
    expect(backendInfo(b)).toMatchObject({ name: 'wasm', threads: availableParallelism() });
  });

  it('turns relaxed SIMD on in this Node without --experimental-wasm-relaxed-simd on the command line', async () => {
    expect(process.execArgv).not.toContain('--experimental-wasm-relaxed-simd');
    expect(backendInfo(await init()).simd).toBe('relaxed');
  });

  it('threads and backend as asked; the same options give the same backend back', async () => {
    const one = await init({ threads: 1 });
    expect(backendInfo(one)).toMatchObject({ name: 'wasm', threads: 1 });
    expect(await init({ threads: 1 })).toBe(one);
    expect((await init({ backend: 'js' })).name).toBe('js');
    expect(backend().name).toBe('js');
  });

  it('refuses an unknown backend and a thread count that is not a positive integer', async () => {
    await expect(init({ backend: 'cuda' })).rejects.toMatchObject({ code: 'E_UNKNOWN', message: expect.stringMatching(/known: js, wasm, webgpu/) });
    await expect(init({ threads: 0 })).rejects.toMatchObject({ code: 'E_RANGE' });
    await expect(init({ threads: 2.5 })).rejects.toMatchObject({ code: 'E_RANGE' });
  });

  it('lists the kinds it can start: the --backend choices', () => {
    expect(backendKinds()).toEqual(['js', 'wasm', 'webgpu']);
  });
});

describe('--backend and --threads on a command', () => {
  const xor = ['train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'xor', '--epochs', '5', '--json'];

  it('an in-process run keeps its backend unless a flag names one', async () => {
    setBackend('js');
    expect((await cli(...xor)).json().backend).toEqual({ name: 'js', threads: 1 });
    expect((await cli(...xor, '--threads', '1')).json().backend).toMatchObject({ name: 'wasm', threads: 1 });
    expect((await cli(...xor, '--backend', 'js')).json().backend).toEqual({ name: 'js', threads: 1 });
  });

  it('reads PARALENS_THREADS from the environment it is given', async () => {
    const out: string[] = [];
    const code = await run(xor, { out: (s) => out.push(s), err: () => {}, errIsTTY: false }, { env: { PARALENS_THREADS: '1', PARALENS_BACKEND: 'wasm' } });
    expect(code).toBe(0);
    expect(JSON.parse(out.join('')).backend).toMatchObject({ name: 'wasm', threads: 1 });
    setBackend('js');
  });

  it('refuses a backend that is not in the registry, listing those that are (exit 2)', async () => {
    const r = await cli(...xor, '--backend', 'cuda');
    expect(r.code).toBe(2);
    expect(r.json().error.message).toMatch(/--backend must be one of js, wasm, webgpu; got 'cuda'/);
    expect((await cli(...xor, '--threads', '0')).code).toBe(2);
  });

  it('--help of a training command lists both flags', async () => {
    const h = (await cli('train', '--help')).out;
    expect(h).toMatch(/--backend js\|wasm/);
    expect(h).toMatch(/--threads N/);
  });
});

describe('the paralens process', () => {
  let built: ReturnType<typeof buildCli>;
  beforeAll(() => {
    built = buildCli('runtime');
  });
  afterAll(() => built?.cleanup());

  it('runs relaxed SIMD on one thread per core by default, and PARALENS_THREADS / --threads choose', () => {
    const runCli = (args: string[], env: Record<string, string> = {}) => {
      const r = spawnSync(
        process.execPath,
        [built.main, 'train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'xor', '--epochs', '3', '--json', ...args],
        { encoding: 'utf8', env: { ...process.env, PARALENS_BACKEND: '', PARALENS_THREADS: '', ...env } },
      );
      expect(r.status, r.stderr).toBe(0);
      return JSON.parse(r.stdout).backend;
    };
    expect(runCli([])).toEqual({ name: 'wasm', simd: 'relaxed', threads: availableParallelism() });
    expect(runCli([], { PARALENS_THREADS: '1' })).toEqual({ name: 'wasm', simd: 'relaxed', threads: 1 });
    expect(runCli(['--threads', '1'], { PARALENS_THREADS: '2' })).toMatchObject({ threads: 1 });
    expect(runCli([], { PARALENS_BACKEND: 'js' })).toEqual({ name: 'js', threads: 1 });
  });
});
