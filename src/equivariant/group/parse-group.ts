import { formatBytes, quote, RangeArgError, TooLargeError } from '../../errors.js';
import { ExpressionError } from './errors.js';
import { cyclic, dihedral, lorentz, O, permutationGroup, product, SO, symmetric, translations1d, translations2d } from './group.js';
import type { Group } from './group.js';

/** The largest number of points a permutation or translation group may act on. */
export const MAX_POINTS = 4096;
/** The largest n of SO(n) and O(n) (n(n−1)/2 Lie-algebra generators of n×n matrices). */
const MAX_LIE_DIM = 64;

/** The most memory the generators of a parsed group may take (its matrices, or permutations). */
const MAX_GROUP_BYTES = 256 * 2 ** 20;

/** The group names `parseGroup` knows, as written. */
export const GROUP_FORMS = ['S(n)', 'Z(n)', 'D(n)', 'Trans(n)', 'Trans(h,w)', 'SO(n)', 'O(n)', 'O(1,3)', 'Perm((…),(…))', 'GxH'];

/**
 * Parses a group expression: `S(4)`, `Z(8)`, `D(6)`, `Trans(16)`, `Trans(8,8)`, `SO(3)`,
 * `O(5)`, `O(1,3)` (Lorentz), `Perm((1,2,3,0),(3,2,1,0))` (the permutation group of a
 * graph's automorphisms given by generators in one-line notation) and products `S(3)xZ(2)`.
 * Errors are ExpressionErrors naming the column and what was expected.
 */
export function parseGroup(src: string): Group {
  let i = 0;
  const ws = (): void => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const fail = (expected: string, at = i): never => {
    throw new ExpressionError('group', src, at, expected);
  };
  // a sticky pattern at i (no slice of the rest: linear in the length of the expression)
  const match = (re: RegExp): RegExpExecArray | null => {
    re.lastIndex = i;
    return re.exec(src);
  };
  const expect = (c: string): void => {
    ws();
    if (src[i] !== c) fail(`'${c}'`);
    i++;
  };
  const int = (): number => {
    ws();
    const m = match(/\d+/y);
    if (!m) fail('an integer');
    if (m![0].length > 7) fail('an integer below 10⁷');
    i += m![0].length;
    return Number(m![0]);
  };
  const ints = (): number[] => {
    const xs = [int()];
    ws();
    while (src[i] === ',') {
      i++;
      xs.push(int());
      ws();
    }
    return xs;
  };
  /** A factor of the product, parsed but not yet built: its dimension d and generator count size its cost. */
  interface Factor {
    readonly d: number;
    readonly generators: number;
    /** A permutation group (generators stored as permutations) rather than matrices. */
    readonly perm: boolean;
    build(): Group;
  }
  const factor = (): Factor => {
    ws();
    const start = i;
    const m = match(/[A-Za-z]+/y);
    if (!m) fail(`a group (${GROUP_FORMS.join(', ')})`);
    const name = m![0];
    i += name.length;
    expect('(');
    const wrap = (f: () => Group): (() => Group) => () => {
      try {
        return f();
      } catch (e) {
        if (e instanceof RangeArgError) throw new RangeArgError(`group ${quote(src)}: ${e.message}`);
        throw e;
      }
    };
    if (name === 'Perm') {
      const gens: number[][] = [];
      ws();
      while (src[i] === '(') {
        i++;
        gens.push(ints());
        expect(')');
        ws();
        if (src[i] === ',') i++;
        ws();
      }
      if (!gens.length) fail("a generator in one-line notation, e.g. '(1,2,0)'");
      const n = gens[0]!.length;
      expect(')');
      if (n > MAX_POINTS) throw new RangeArgError(`group ${quote(src)}: Perm(…) acts on ${n} points; at most ${MAX_POINTS}`);
      return { d: n, generators: gens.length, perm: true, build: wrap(() => permutationGroup(n, gens, `Perm(${gens.map((p) => `(${p.join(',')})`).join(',')})`)) };
    }
    const args = ints();
    expect(')');
    const arity = (k: number): void => {
      if (args.length !== k) fail(`${name} with ${k} argument(s)`, start);
    };
    // sizes beyond these would not fit in memory (or would take hours): refuse them up front
    const limit = name === 'SO' || name === 'O' ? MAX_LIE_DIM : MAX_POINTS;
    if (name === 'Trans' && args.length === 2 && args[0]! * args[1]! > MAX_POINTS) {
      throw new RangeArgError(`group ${quote(src)}: Trans(h,w) acts on h·w = ${args[0]! * args[1]!} points; at most ${MAX_POINTS}`);
    }
    for (const a of args) if (a > limit) throw new RangeArgError(`group ${quote(src)}: ${name}(…) takes sizes up to ${limit}, got ${a}`);
    const n = args[0]!;
    const lieGens = (k: number): number => (k * (k - 1)) / 2;
    switch (name) {
      case 'S': arity(1); return { d: n, generators: 2, perm: true, build: wrap(() => symmetric(n)) };
      case 'Z': arity(1); return { d: n, generators: 1, perm: true, build: wrap(() => cyclic(n)) };
      case 'D': arity(1); return { d: n, generators: 2, perm: true, build: wrap(() => dihedral(n)) };
      case 'SO': arity(1); return { d: n, generators: lieGens(n), perm: false, build: wrap(() => SO(n)) };
      case 'O':
        if (args.length === 2) {
          if (args[0] !== 1 || args[1] !== 3) fail('O(1,3) (the Lorentz group) or O(n)', start);
          return { d: 4, generators: 8, perm: false, build: () => lorentz() };
        }
        arity(1);
        return { d: n, generators: lieGens(n) + 1, perm: false, build: wrap(() => O(n)) };
      case 'Trans':
        if (args.length === 2) return { d: n * args[1]!, generators: 2, perm: true, build: wrap(() => translations2d(n, args[1]!)) };
        arity(1);
        return { d: n, generators: 1, perm: true, build: wrap(() => translations1d(n)) };
      default:
        return fail(`a known group (${GROUP_FORMS.join(', ')})`, start);
    }
  };
  const factors = [factor()];
  ws();
  while (src[i] === 'x' || src[i] === '×') {
    i++;
    factors.push(factor());
    ws();
  }
  if (i < src.length) fail("'x' (a product) or the end");
  checkGroupCost(src, factors);
  return factors.map((f) => f.build()).reduce((g, h) => product(g, h));
}

/**
 * Refuses a product whose generators would not fit: permutations take 4 bytes per point, but
 * once a factor is a matrix group every generator of the product is a d×d matrix (d the sum
 * of the factors' dimensions), so 'O(64)xO(64)xO(64)xO(64)' would need gigabytes.
 */
function checkGroupCost(src: string, factors: readonly { d: number; generators: number; perm: boolean }[]): void {
  const d = factors.reduce((a, f) => a + f.d, 0);
  const generators = factors.reduce((a, f) => a + f.generators, 0);
  if (d > MAX_POINTS) throw new RangeArgError(`group ${quote(src)}: the product acts on ${d} points; at most ${MAX_POINTS}`);
  const bytes = factors.every((f) => f.perm) ? 4 * generators * d : 8 * generators * d * d;
  if (bytes > MAX_GROUP_BYTES) {
    throw new TooLargeError(`group ${quote(src)}: its ${generators} generators as ${d}×${d} matrices need about ${formatBytes(bytes)}; the limit is ${formatBytes(MAX_GROUP_BYTES)}`, { bytes, elements: generators * d * d });
  }
}
