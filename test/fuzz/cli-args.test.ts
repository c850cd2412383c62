// Fuzzing the argument handling of `predict`, `kmeans` and `derive`: random flag soups with
// values from per-flag pools (valid, out of range, malformed, missing files, corrupt files).
// Allowed outcomes: exit 0 with output, exit 2 with one `paralens: …` line (exit 1 only
// for `derive`'s solver failing); never a stack trace, never E_INTERNAL.
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from '../cli/helpers.js';
import { NUM_RUNS } from './cleanly.js';

const work = mkdtempSync(join(tmpdir(), 'paralens-fuzz-cli-'));
const f = (name: string): string => join(work, name);
afterAll(() => rmSync(work, { recursive: true, force: true }));
beforeAll(async () => {
  const r = await cli('train', '--model', 'dense(2,4) >> tanh >> dense(4,1)', '--data', 'xor', '--epochs', '3', '--save', f('xor.safetensors'));
  expect(r.code, r.err).toBe(0);
  writeFileSync(f('garbage.safetensors'), 'this is not a model');
  writeFileSync(f('huge-header.safetensors'), new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0x7b, 0x7d]));
  writeFileSync(f('points.csv'), 'a,b,label\n0,0,x\n0,1,y\n1,0,y\n1,1,x\n0.5,0.5,x\n');
  writeFileSync(f('bad.csv'), 'a,b\n1,2,3\nNaN,4\n');
  writeFileSync(f('empty.csv'), '');
  mkdirSync(f('dir'));
});

const GARBAGE = ['', ' ', 'abc', '-1', '0', '1e400', 'NaN', '--json', '=', '2.5'];
type Pools = Record<string, readonly string[]>;

/**
 * A random command line: usually each required flag with a value from its pool (so that
 * many runs get past the first check and exercise the rest), then random flags (some
 * repeated, some unknown) with values from their pools or garbage, in random order.
 */
function argv(pools: Pools, required: readonly string[]): fc.Arbitrary<string[]> {
  const base = fc
    .tuple(
      ...required.map((fl) =>
        fc.option(
          fc.constantFrom(...pools[fl]!).map((v): string[] => [fl, v]),
          { freq: 6 },
        ),
      ),
    )
    .map((a) => a.flatMap((p) => p ?? []));
  return fc
    .tuple(base, extras(pools))
    .chain(([b, e]) => fc.shuffledSubarray([...pairs(b), ...e], { minLength: pairs(b).length + e.length }).map((a) => a.flat()));
}

const pairs = (flat: string[]): string[][] => Array.from({ length: flat.length / 2 }, (_, i) => flat.slice(2 * i, 2 * i + 2));

function extras(pools: Pools) {
  const flag = fc.constantFrom(...Object.keys(pools), '--json', '--nope');
  const pair = flag.chain((fl): fc.Arbitrary<string[]> =>
    fl === '--json'
      ? fc.constant([fl])
      : fc
          .tuple(
            fc.constant(fl),
            fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(pools[fl] ?? GARBAGE)) }, { weight: 1, arbitrary: fc.constantFrom(...GARBAGE) }),
          )
          .map((p) => [...p]),
  );
  const eq = fc.tuple(fc.constantFrom(...Object.keys(pools)), fc.constantFrom(...GARBAGE)).map(([k, v]) => [`${k}=${v}`]);
  return fc.array(fc.oneof({ weight: 5, arbitrary: pair }, { weight: 1, arbitrary: eq }, { weight: 1, arbitrary: fc.constantFrom(['positional'], ['-x']) }), {
    maxLength: 5,
  });
}

async function fuzzCommand(name: string, pools: Pools, required: readonly string[], runs: number, allowed = [0, 2]): Promise<Record<number, number>> {
  const codes: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(argv(pools, required), async (args) => {
      const r = await cli(name, ...args);
      codes[r.code] = (codes[r.code] ?? 0) + 1;
      expect(allowed, `${name} ${args.join(' ')} → ${r.code}: ${r.err}`).toContain(r.code);
      if (r.code !== 0) expect(r.err, args.join(' ')).toMatch(/^paralens: [^\n]+\n$/);
      expect(r.err).not.toMatch(/\n\s+at /);
      expect(r.out + r.err).not.toMatch(/E_INTERNAL/);
      if (args.includes('--json') && !args.includes('--help') && r.code !== 0 && r.out) expect(() => JSON.parse(r.out)).not.toThrow();
    }),
    { numRuns: runs },
  );
  if (process.env.PARALENS_TEST_VERBOSE) console.log(name, codes);
  return codes;
}

/** In-process CLI runs cost ~1-2 ms each: NUM_RUNS per command (PARALENS_FUZZ_RUNS when set). */
const CLI_RUNS = NUM_RUNS;

describe('fuzzing CLI argument handling: exit 0 or 2, one line, never a crash', () => {
  it('predict', async () => {
    const codes = await fuzzCommand(
      'predict',
      {
        '--load': [f('xor.safetensors'), f('garbage.safetensors'), f('huge-header.safetensors'), f('missing.safetensors'), f('dir'), f('points.csv')],
        '--input': ['0,1', '0,1;1,1', '1', '0,1,2', 'a,b', '', ';;', '1e400,0', 'NaN,1', '0,1;', ' 1 , 0 '],
        '--csv': [f('points.csv'), f('bad.csv'), f('empty.csv'), f('missing.csv'), f('dir')],
      },
      ['--load', '--input'],
      CLI_RUNS,
    );
    expect(codes[0]).toBeGreaterThan(0);
    expect(codes[2]).toBeGreaterThan(0);
  });

  it('kmeans', async () => {
    const codes = await fuzzCommand(
      'kmeans',
      {
        '--data': ['xor', 'iris', 'moons', 'blobs', 'nope', ''],
        '--csv': [f('points.csv'), f('bad.csv'), f('empty.csv'), f('missing.csv'), f('dir')],
        '--k': ['1', '2', '3', '0', '-1', '99999999999', 'x'],
        '--restarts': ['1', '2', '0', '-3'],
        '--max-iter': ['1', '5', '0'],
        '--tol': ['0', '1e-4', '-1', 'NaN', 'Infinity'],
        '--seed': ['0', '7', '-1', '4294967296'],
      },
      ['--data', '--k'],
      CLI_RUNS,
    );
    expect(codes[0]).toBeGreaterThan(0);
    expect(codes[2]).toBeGreaterThan(0);
  });

  it('train with checkpoint flags: a corrupt, missing or mismatched checkpoint is exit 2, never a crash', async () => {
    // Garbage values (`--checkpoint=2.5`) are relative directories: create them in the scratch directory, not the repository.
    const cwd = process.cwd();
    process.chdir(work);
    let codes: Record<number, number>;
    try {
      codes = await fuzzCommand(
        'train',
        {
          '--model': ['dense(2,4) >> tanh >> dense(4,1)', 'dense(2,1)', 'dense(4,3)', 'dense(2,4) >> relu >> dense(4,1)'],
          '--data': ['xor', 'iris'],
          '--epochs': ['1', '2', '4'],
          '--lr': ['0.1', '0.5', '1e9'],
          '--optimizer': ['sgd', 'adam', 'momentum'],
          '--checkpoint': [f('ck-a'), f('ck-b'), f('garbage.safetensors')],
          '--resume': [f('ck-a'), f('ck-b'), f('missing'), f('dir'), f('xor.safetensors'), f('garbage.safetensors')],
          '--every': ['1', '2', '0', '-1'],
        },
        ['--model', '--data'],
        Math.min(CLI_RUNS, 300),
        [0, 1, 2],
      );
    } finally {
      process.chdir(cwd);
    }
    expect(codes[0]).toBeGreaterThan(0);
    expect(codes[2]).toBeGreaterThan(0);
  });

  it('derive', async () => {
    const codes = await fuzzCommand(
      'derive',
      {
        '--group': ['S(3)', 'Z(4)', 'D(3)', 'SO(2)', 'O(2)', 'Trans(4)', 'S(2)xZ(2)', 'S(', 'Q(3)', 'S(0)', 'S(-1)', 'Perm((1,0))'],
        '--in': ['V', 'T(0)', 'T(1)', 'V+T(0)', '2V', 'T(2)', 'dual(V)', 'V*', 'T(', 'W'],
        '--out': ['V', 'T(0)', 'T(1)', 'V+T(0)', '2V', 'T(2)', '+', 'T(1,1)'],
        '--dense-limit': ['1', '100', '0', '-5'],
        '--max-memory': ['1', '0.001', '1024', '0', '-1'],
        '--seed': ['0', '3'],
        '--basis': ['x'],
      },
      ['--group', '--in', '--out'],
      CLI_RUNS,
      [0, 1, 2],
    );
    expect(codes[0]).toBeGreaterThan(0);
    expect(codes[2]).toBeGreaterThan(0);
  });
});

/**
 * Sizes that would not fit in memory (or would take hours) are refused up front with a typed
 * error (these once crashed with untyped RangeErrors or ran out of memory).
 */
describe('large numbers in derive expressions', () => {
  for (const [flag, value] of [
    ['--in', '99999999999V'],
    ['--in', 'T(99999999999)'],
    ['--in', '5000000V'],
    ['--group', 'S(99999999999)'],
    ['--group', 'Z(4294967296)'],
    ['--group', 'O(100000)'],
    ['--group', 'Trans(100000,100000)'],
    ['--in', 'T(100000000)'],
    ['--group', 'S(100000000)'],
    ['--group', 'O(565)'],
    ['--group', 'SO(22222)'],
  ] as const) {
    it(`derive ${flag} ${value} exits 2 with a typed error`, async () => {
      const args = { '--group': 'S(3)', '--in': 'V', '--out': 'V', [flag]: value };
      const r = await cli('derive', ...Object.entries(args).flat());
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/integer|sizes up to|at most/);
    }, 20_000);
  }
});
