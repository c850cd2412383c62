import { ExpressionError } from './errors.js';
import { dual, MAX_MULTIPLICITY, sum, T, tensorRep, times, V } from './rep.js';
import type { Rep } from './rep.js';

/** The largest multiplicity or tensor power an expression may write (3V, T(k)). */
const MAX_INT = MAX_MULTIPLICITY;
/** The deepest nesting of parentheses, dual(…), sum(…) and tensor(…) an expression may write. */
const MAX_REP_DEPTH = 32;

/**
 * Parses a representation expression (DESIGN.md, `paralens derive`):
 *
 *     rep     := term ('+' term)*                 direct sum
 *     term    := [INT] product                    3V = V+V+V
 *     product := factor (('*' | '⊗') factor)*    tensor product
 *     factor  := 'V' | 'T(' INT [',' INT] ')' | 'T' INT ['_' INT] | 'dual(' rep ')' | '(' rep ')'
 *              | 'sum(' rep {',' rep} ')' | 'tensor(' rep {',' rep} ')'   (call forms, used in spec strings)
 *
 * `T(0)` is the trivial representation, `T(k)` = V^⊗k, `T(p,q)` = V^⊗p ⊗ (V*)^⊗q; the
 * compact forms `T2`, `T1_1` are the same and survive inside model spec strings.
 * Errors are ExpressionErrors naming the column and what was expected there.
 */
export function parseRep(src: string): Rep {
  let i = 0,
    depth = 0;
  const ws = (): void => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const fail = (expected: string): never => {
    throw new ExpressionError('representation', src, i, expected);
  };
  const INT = /\d+/y;
  const int = (): number | undefined => {
    ws();
    INT.lastIndex = i;
    const m = INT.exec(src);
    if (!m) return undefined;
    // multiplicities and tensor powers beyond this describe spaces no machine holds
    if (Number(m[0]) > MAX_INT) fail(`an integer ≤ ${MAX_INT}`);
    i += m[0].length;
    return Number(m[0]);
  };
  const needInt = (): number => int() ?? fail('an integer');
  const expect = (c: string): void => {
    ws();
    if (src[i] !== c) fail(`'${c}'`);
    i++;
  };
  /** Parses a nested rep (inside '(', dual, sum, tensor), refusing nesting deeper than MAX_REP_DEPTH. */
  const nested = (): Rep => {
    if (++depth > MAX_REP_DEPTH) fail(`at most ${MAX_REP_DEPTH} levels of nesting`);
    const r = rep();
    depth--;
    return r;
  };
  const factor = (): Rep => {
    ws();
    if (src[i] === '(') {
      i++;
      const r = nested();
      expect(')');
      return r;
    }
    for (const [name, make] of [
      ['sum', (rs: Rep[]) => sum(...rs)],
      ['tensor', (rs: Rep[]) => tensorRep(...rs)],
    ] as const) {
      if (src.startsWith(`${name}(`, i)) {
        i += name.length + 1;
        const rs = [nested()];
        ws();
        while (src[i] === ',') {
          i++;
          rs.push(nested());
          ws();
        }
        expect(')');
        return make(rs);
      }
    }
    if (src.startsWith('dual', i)) {
      i += 4;
      expect('(');
      const r = nested();
      expect(')');
      return dual(r);
    }
    if (src[i] === 'V') {
      i++;
      return V;
    }
    if (src[i] === 'T') {
      i++;
      if (src[i] === '(') {
        i++;
        const p = needInt();
        ws();
        let q = 0;
        if (src[i] === ',') {
          i++;
          q = needInt();
        }
        expect(')');
        return T(p, q);
      }
      if (!/\d/.test(src[i] ?? '')) fail("'(' or a digit after T, as in T(2) or T2");
      const p = needInt();
      let q = 0;
      if (src[i] === '_') {
        i++;
        q = needInt();
      }
      return T(p, q);
    }
    return fail("a representation: V, T(k), T(p,q), dual(…) or '('");
  };
  const product = (): Rep => {
    const fs = [factor()];
    ws();
    while (src[i] === '*' || src[i] === '⊗') {
      i++;
      fs.push(factor());
      ws();
    }
    return tensorRep(...fs);
  };
  const term = (): Rep => {
    ws();
    const k = int();
    if (k !== undefined) {
      if (k === 0) {
        i--;
        fail('a multiplicity ≥ 1');
      }
      ws();
      if (src[i] === '*') i++;
    }
    const p = product();
    return k === undefined ? p : times(k, p);
  };
  const rep = (): Rep => {
    const parts = [term()];
    ws();
    while (src[i] === '+' || src[i] === '⊕') {
      i++;
      parts.push(term());
      ws();
    }
    return sum(...parts);
  };
  if (typeof src !== 'string' || src.trim() === '') return fail('a representation such as V, T(2) or V+T(2)');
  const r = rep();
  ws();
  if (i < src.length) fail("'+', '*' or the end");
  return r;
}
