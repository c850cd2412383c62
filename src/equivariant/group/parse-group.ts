import { RangeArgError } from '../../errors.js';
import { ExpressionError } from './errors.js';
import { cyclic, dihedral, directProduct, lorentz, O, permutationGroup, product, properLorentz, SO, symmetric, translations1d, translations2d } from './group.js';
import { rubiksCube } from './rubik.js';
import type { Group } from './group.js';

/** The largest number of points a permutation or translation group may act on. */
const MAX_POINTS = 4096;
/** The largest n of SO(n) and O(n) (n(n−1)/2 Lie-algebra generators of n×n matrices). */
const MAX_LIE_DIM = 64;

/** The group names `parseGroup` knows, as written. */
export const GROUP_FORMS = ['S(n)', 'Z(n)', 'D(n)', 'Trans(n)', 'Trans(h,w)', 'SO(n)', 'O(n)', 'O(1,3)', 'SO+(1,3)', 'Perm((…),(…))', 'RubiksCube()', 'DirectProduct(G,H)', 'DirectSum(G,H)', 'G*H', 'GxH'];

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
    let name = m![0];
    i += name.length;
    if (name === 'SO' && src[i] === '+') {
      name = 'SO+';
      i++;
    }
    expect('(');
    if (name === 'DirectProduct' || name === 'DirectSum') {
      const a = expr();
      expect(',');
      const b = expr();
      expect(')');
      return name === 'DirectProduct' ? tensorProductOf(a, b) : product(a, b);
    }
    if (name === 'RubiksCube') {
      expect(')');
      return rubiksCube();
    }
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
      case 'SO+':
        if (args.length !== 2 || args[0] !== 1 || args[1] !== 3) fail('SO+(1,3) (the proper orthochronous Lorentz group)', start);
        g = properLorentz();
        break;
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
  function tensorProductOf(a: Group, b: Group): Group {
    if (a.d * b.d > MAX_POINTS) throw new RangeArgError(`group '${src}': DirectProduct acts on V_G ⊗ V_H of dimension ${a.d}·${b.d} = ${a.d * b.d}; at most ${MAX_POINTS}`);
    return directProduct(a, b);
  }
  // products, left to right: 'x' acts on V_G ⊕ V_H, '*' on V_G ⊗ V_H
  function expr(): Group {
    let g = factor();
    ws();
    while (src[i] === 'x' || src[i] === '×' || src[i] === '*') {
      const tensor = src[i] === '*';
      i++;
      const h = factor();
      g = tensor ? tensorProductOf(g, h) : product(g, h);
      ws();
    }
    return g;
  }
  const g = expr();
  if (i < src.length) fail("'x' or '*' (a product) or the end");
  return g;
}
