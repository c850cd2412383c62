import { RangeArgError } from '../../errors.js';
import { ExpressionError } from './errors.js';
import { cyclic, dihedral, lorentz, O, permutationGroup, product, SO, symmetric, translations1d, translations2d } from './group.js';
import type { Group } from './group.js';

/** The largest number of points a permutation or translation group may act on. */
const MAX_POINTS = 4096;
/** The largest n of SO(n) and O(n) (n(n−1)/2 Lie-algebra generators of n×n matrices). */
const MAX_LIE_DIM = 64;

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
  const found = (): string => (i < src.length ? `'${src[i]}'` : 'the end');
  const fail = (expected: string, at = i): never => {
    const save = i;
    i = at;
    const f = found();
    i = save;
    throw new ExpressionError('group', src, at, expected, f);
  };
  const expect = (c: string): void => {
    ws();
    if (src[i] !== c) fail(`'${c}'`);
    i++;
  };
  const int = (): number => {
    ws();
    const m = /^\d+/.exec(src.slice(i));
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
  const factor = (): Group => {
    ws();
    const start = i;
    const m = /^[A-Za-z]+/.exec(src.slice(i));
    if (!m) fail(`a group (${GROUP_FORMS.join(', ')})`);
    const name = m![0];
    i += name.length;
    expect('(');
    const wrap = (f: () => Group): Group => {
      try {
        return f();
      } catch (e) {
        if (e instanceof RangeArgError) throw new RangeArgError(`group '${src}': ${e.message}`);
        throw e;
      }
    };
    let g: Group;
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
      return wrap(() => permutationGroup(n, gens, `Perm(${gens.map((p) => `(${p.join(',')})`).join(',')})`));
    }
    const args = ints();
    expect(')');
    const arity = (k: number): void => {
      if (args.length !== k) fail(`${name} with ${k} argument(s)`, start);
    };
    // sizes beyond these would not fit in memory (or would take hours): refuse them up front
    const limit = name === 'SO' || name === 'O' ? MAX_LIE_DIM : MAX_POINTS;
    if (name === 'Trans' && args.length === 2 && args[0]! * args[1]! > MAX_POINTS) {
      throw new RangeArgError(`group '${src}': Trans(h,w) acts on h·w = ${args[0]! * args[1]!} points; at most ${MAX_POINTS}`);
    }
    for (const a of args) if (a > limit) throw new RangeArgError(`group '${src}': ${name}(…) takes sizes up to ${limit}, got ${a}`);
    switch (name) {
      case 'S': arity(1); g = wrap(() => symmetric(args[0]!)); break;
      case 'Z': arity(1); g = wrap(() => cyclic(args[0]!)); break;
      case 'D': arity(1); g = wrap(() => dihedral(args[0]!)); break;
      case 'SO': arity(1); g = wrap(() => SO(args[0]!)); break;
      case 'O':
        if (args.length === 2) {
          if (args[0] !== 1 || args[1] !== 3) fail('O(1,3) (the Lorentz group) or O(n)', start);
          g = lorentz();
        } else {
          arity(1);
          g = wrap(() => O(args[0]!));
        }
        break;
      case 'Trans':
        if (args.length === 2) g = wrap(() => translations2d(args[0]!, args[1]!));
        else {
          arity(1);
          g = wrap(() => translations1d(args[0]!));
        }
        break;
      default:
        return fail(`a known group (${GROUP_FORMS.join(', ')})`, start);
    }
    return g;
  };
  let g = factor();
  ws();
  while (src[i] === 'x' || src[i] === '×') {
    i++;
    g = product(g, factor());
    ws();
  }
  if (i < src.length) fail("'x' (a product) or the end");
  return g;
}
