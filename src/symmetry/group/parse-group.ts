import { formatBytes, quote, RangeArgError, TooLargeError } from '../../errors.js';
import { ExpressionError } from './errors.js';
import {
  cyclic,
  dihedral,
  directProduct,
  lorentz,
  O,
  permutationGroup,
  product,
  properLorentz,
  SO,
  symmetric,
  translations1d,
  translations2d,
} from './group.js';
import { rubiksCube } from './rubik.js';
import type { Group } from './group.js';

/** The largest number of points a permutation or translation group may act on. */
export const MAX_POINTS = 4096;
/** The largest n of SO(n) and O(n) (n(n−1)/2 Lie-algebra generators of n×n matrices). */
const MAX_LIE_DIM = 64;

/** The most memory the generators of a parsed group may take (its matrices, or permutations). */
const MAX_GROUP_BYTES = 256 * 2 ** 20;
/** The deepest nesting of DirectProduct(…) and DirectSum(…) an expression may write. */
const MAX_GROUP_DEPTH = 16;

/**
 * A group parsed but not yet built: its dimension d and its generators (permutations, or
 * discrete and Lie-algebra matrices) size what building it costs, so a product whose
 * generators would not fit is refused before any of it exists.
 */
interface Parsed {
  readonly d: number;
  readonly discrete: number;
  readonly lie: number;
  /** A permutation group: generators stored as d numbers, not d×d matrices. */
  readonly perm: boolean;
  build(): Group;
}

/** The group names `parseGroup` knows, as written. */
export const GROUP_FORMS = [
  'S(n)',
  'Z(n)',
  'D(n)',
  'Trans(n)',
  'Trans(h,w)',
  'SO(n)',
  'O(n)',
  'O(1,3)',
  'SO+(1,3)',
  'Perm((…),(…))',
  'RubiksCube()',
  'DirectProduct(G,H)',
  'DirectSum(G,H)',
  'G*H',
  'GxH',
];

/**
 * Parses a group expression: `S(4)`, `Z(8)`, `D(6)`, `Trans(16)`, `Trans(8,8)`, `SO(3)`,
 * `O(5)`, `O(1,3)` (Lorentz), `SO+(1,3)` (its identity component), `Perm((1,2,3,0),(3,2,1,0))`
 * (the permutation group of a graph's automorphisms given by generators in one-line
 * notation), `RubiksCube()` (48 facelets, six face turns) and direct products, under names that
 * say which representation they act on: `DirectProduct(G,H)` or `G*H` (EMLP's: on V_G ⊗ V_H)
 * and `DirectSum(G,H)` or `GxH` (on V_G ⊕ V_H). Errors are ExpressionErrors naming the column
 * and what was expected.
 */
export function parseGroup(src: string): Group {
  let i = 0;
  const ws = (): void => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  let depth = 0;
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
  const factor = (): Parsed => {
    ws();
    const start = i;
    const m = match(/[A-Za-z]+/y);
    if (!m) fail(`a group (${GROUP_FORMS.join(', ')})`);
    let name = m![0];
    i += name.length;
    if (name === 'SO' && src[i] === '+') {
      name = 'SO+';
      i++;
    }
    expect('(');
    if (name === 'DirectProduct' || name === 'DirectSum') {
      if (++depth > MAX_GROUP_DEPTH) fail(`at most ${MAX_GROUP_DEPTH} levels of nesting`, start);
      const a = expr();
      expect(',');
      const b = expr();
      expect(')');
      depth--;
      return name === 'DirectProduct' ? tensorProductOf(a, b) : sumOf(a, b);
    }
    if (name === 'RubiksCube') {
      expect(')');
      return { d: 48, discrete: 6, lie: 0, perm: true, build: rubiksCube };
    }
    const wrap =
      (f: () => Group): (() => Group) =>
      () => {
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
      return {
        d: n,
        discrete: gens.length,
        lie: 0,
        perm: true,
        build: wrap(() => permutationGroup(n, gens, `Perm(${gens.map((p) => `(${p.join(',')})`).join(',')})`)),
      };
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
      case 'S':
        arity(1);
        return { d: n, discrete: 2, lie: 0, perm: true, build: wrap(() => symmetric(n)) };
      case 'Z':
        arity(1);
        return { d: n, discrete: 1, lie: 0, perm: true, build: wrap(() => cyclic(n)) };
      case 'D':
        arity(1);
        return { d: n, discrete: 2, lie: 0, perm: true, build: wrap(() => dihedral(n)) };
      case 'SO':
        arity(1);
        return { d: n, discrete: 0, lie: lieGens(n), perm: false, build: wrap(() => SO(n)) };
      case 'SO+':
        if (args.length !== 2 || args[0] !== 1 || args[1] !== 3) fail('SO+(1,3) (the proper orthochronous Lorentz group)', start);
        return { d: 4, discrete: 0, lie: 6, perm: false, build: properLorentz };
      case 'O':
        if (args.length === 2) {
          if (args[0] !== 1 || args[1] !== 3) fail('O(1,3) (the Lorentz group) or O(n)', start);
          return { d: 4, discrete: 2, lie: 6, perm: false, build: lorentz };
        }
        arity(1);
        return { d: n, discrete: 1, lie: lieGens(n), perm: false, build: wrap(() => O(n)) };
      case 'Trans':
        if (args.length === 2) return { d: n * args[1]!, discrete: 2, lie: 0, perm: true, build: wrap(() => translations2d(n, args[1]!)) };
        arity(1);
        return { d: n, discrete: 1, lie: 0, perm: true, build: wrap(() => translations1d(n)) };
      default:
        return fail(`a known group (${GROUP_FORMS.join(', ')})`, start);
    }
  };
  /** A product acting on d dimensions, refused before it is built when its generators would not fit. */
  const combined = (a: Parsed, b: Parsed, d: number, build: () => Group): Parsed => {
    const c = { d, discrete: a.discrete + b.discrete, lie: a.lie + b.lie, perm: a.perm && b.perm, build };
    checkGroupCost(src, c);
    return c;
  };
  function tensorProductOf(a: Parsed, b: Parsed): Parsed {
    if (a.d * b.d > MAX_POINTS)
      throw new RangeArgError(`group ${quote(src)}: DirectProduct acts on V_G ⊗ V_H of dimension ${a.d}·${b.d} = ${a.d * b.d}; at most ${MAX_POINTS}`);
    return combined(a, b, a.d * b.d, () => directProduct(a.build(), b.build()));
  }
  function sumOf(a: Parsed, b: Parsed): Parsed {
    return combined(a, b, a.d + b.d, () => product(a.build(), b.build()));
  }
  // products, left to right: 'x' acts on V_G ⊕ V_H, '*' on V_G ⊗ V_H
  function expr(): Parsed {
    let g = factor();
    ws();
    while (src[i] === 'x' || src[i] === '×' || src[i] === '*') {
      const tensor = src[i] === '*';
      i++;
      const h = factor();
      g = tensor ? tensorProductOf(g, h) : sumOf(g, h);
      ws();
    }
    return g;
  }
  const g = expr();
  if (i < src.length) fail("'x' or '*' (a product) or the end");
  return g.build();
}

/**
 * Refuses a group whose generators would not fit: permutations take 4 bytes per point, but
 * once a factor is a matrix group every generator of a product is a d×d matrix (d the sum, or
 * for DirectProduct the product, of the factors' dimensions), so 'O(64)xO(64)xO(64)xO(64)'
 * would need gigabytes.
 */
function checkGroupCost(src: string, g: { d: number; discrete: number; lie: number; perm: boolean }): void {
  if (g.d > MAX_POINTS) throw new RangeArgError(`group ${quote(src)}: the product acts on ${g.d} points; at most ${MAX_POINTS}`);
  const generators = g.discrete + g.lie;
  const bytes = g.perm ? 4 * generators * g.d : 8 * generators * g.d * g.d;
  if (bytes > MAX_GROUP_BYTES) {
    throw new TooLargeError(
      `group ${quote(src)}: its ${generators} generators as ${g.d}×${g.d} matrices need about ${formatBytes(bytes)}; the limit is ${formatBytes(MAX_GROUP_BYTES)}`,
      { bytes, elements: generators * g.d * g.d },
    );
  }
}
