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
  const base = fc.tuple(...required.map((fl) => fc.option(fc.constantFrom(...pools[fl]!).map((v): string[] => [fl, v]), { freq: 6 }))).map((a) => a.flatMap((p) => p ?? []));
  return fc.tuple(base, extras(pools)).chain(([b, e]) => fc.shuffledSubarray([...pairs(b), ...e], { minLength: pairs(b).length + e.length }).map((a) => a.flat()));
}

const pairs = (flat: string[]): string[][] => Array.from({ length: flat.length / 2 }, (_, i) => flat.slice(2 * i, 2 * i + 2));

function extras(pools: Pools) {
  const flag = fc.constantFrom(...Object.keys(pools), '--json', '--nope');
  const pair = flag.chain((fl): fc.Arbitrary<string[]> =>
    fl === '--json' ? fc.constant([fl]) : fc.tuple(fc.constant(fl), fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...(pools[fl] ?? GARBAGE)) }, { weight: 1, arbitrary: fc.constantFrom(...GARBAGE) })).map((p) => [...p]),
  );
  const eq = fc.tuple(fc.constantFrom(...Object.keys(pools)), fc.constantFrom(...GARBAGE)).map(([k, v]) => [`${k}=${v}`]);
  return fc.array(fc.oneof({ weight: 5, arbitrary: pair }, { weight: 1, arbitrary: eq }, { weight: 1, arbitrary: fc.constantFrom(['positional'], ['-x']) }), { maxLength: 5 });
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

/**
 * Sizes that would not fit in memory (or would take hours) are refused up front with a typed
 * error (these once crashed with untyped RangeErrors or ran out of memory).
 */
describe('large numbers in derive expressions', () => {
  for (const [flag, value] of [['--in', '99999999999V'], ['--in', 'T(99999999999)'], ['--in', '5000000V'], ['--group', 'S(99999999999)'], ['--group', 'Z(4294967296)'], ['--group', 'O(100000)'], ['--group', 'Trans(100000,100000)'], ['--in', 'T(100000000)'], ['--group', 'S(100000000)'], ['--group', 'O(565)'], ['--group', 'SO(22222)']] as const) {
    it(`derive ${flag} ${value} exits 2 with a typed error`, async () => {
      const args = { '--group': 'S(3)', '--in': 'V', '--out': 'V', [flag]: value };
      const r = await cli('derive', ...Object.entries(args).flat());
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/integer|sizes up to|at most/);
    }, 20_000);
  }
});
