import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../../src/random/rng.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { ExpressionError } from '../../src/symmetry/group/errors.js';
import { atoms, repSize, repToString } from '../../src/symmetry/group/rep.js';
import type { Rep } from '../../src/symmetry/group/rep.js';
import { dual, sum, T, tensorRep, times, trivial, V } from '../../src/symmetry/group/rep.js';

const errorOf = (f: () => unknown): ExpressionError => {
  try {
    f();
  } catch (e) {
    if (e instanceof ExpressionError) return e;
    throw e;
  }
  throw new Error('no error');
};

describe('representation grammar', () => {
  it('parses the forms of DESIGN.md with the right sizes (d = 3)', () => {
    const sizes: [string, number][] = [
      ['V', 3],
      ['T(2)', 9],
      ['V+T(2)', 12],
      ['3V', 9],
      ['V*V', 9],
      ['T(0)', 1],
      ['T(1,1)', 9],
      ['dual(V)', 3],
      ['2(V+T0)', 8],
      ['T2+5T0', 14],
      ['sum(V,tensor(V,V+T0))', 15],
    ];
    for (const [s, n] of sizes) expect(repSize(parseRep(s), 3)).toBe(n);
  });
  it('malformed expressions raise typed errors naming the column and what was expected', () => {
    const e1 = errorOf(() => parseRep('V+'));
    expect(e1.position).toBe(2);
    expect(e1.message).toMatch(/column 3/);
    expect(e1.message).toMatch(/expected a representation/);
    const e2 = errorOf(() => parseRep('T(2'));
    expect(e2.expected).toBe("')'");
    const e3 = errorOf(() => parseRep('V V'));
    expect(e3.position).toBe(2);
    expect(e3.code).toBe('E_EXPR');
    expect(e3.usage).toBe(true);
    expect(errorOf(() => parseRep('Q')).message).toMatch(/V, T\(k\)/);
    expect(errorOf(() => parseRep('0V')).message).toMatch(/multiplicity/);
  });
  it('a run of more than 64 equal summands (nested sums flattened) prints in pieces that parse back', () => {
    const r = tensorRep(V, sum(...Array.from({ length: 3 }, () => sum(...Array.from({ length: 3 }, () => times(9, V))))));
    expect(repToString(r)).toBe('V*(64V+17V)');
    expect(repSize(parseRep(repToString(r)), 3)).toBe(repSize(r, 3));
  });

  it('printing parses back to a representation of the same layout (property)', () => {
    const leaf = fc.constantFrom<Rep>(V, trivial, T(2), dual(V), T(1, 1));
    const rep: fc.Arbitrary<Rep> = fc.letrec<{ r: Rep }>((tie) => ({
      r: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.tuple(tie('r'), tie('r')).map(([a, b]) => sum(a, b)),
        fc.tuple(tie('r'), tie('r')).map(([a, b]) => tensorRep(a, b)),
        fc.tuple(fc.integer({ min: 2, max: 3 }), tie('r')).map(([k, a]) => times(k, a)),
      ),
    })).r;
    fc.assert(
      fc.property(rep, fc.boolean(), (r, compact) => {
        const text = repToString(r, compact);
        const back = parseRep(text);
        const key = (x: Rep) => JSON.stringify(atoms(x, 2).map((a) => [a.factors, Array.from(a.pos)]));
        return repSize(back, 2) === repSize(r, 2) && key(back) === key(r) && repToString(back, compact) === text;
      }),
      { numRuns: 1000 },
    );
  });
});

describe('group grammar', () => {
  it('parses every documented form', () => {
    const forms: [string, number][] = [
      ['S(4)', 4],
      ['Z(8)', 8],
      ['D(6)', 6],
      ['Trans(16)', 16],
      ['Trans(4,5)', 20],
      ['SO(3)', 3],
      ['O(5)', 5],
      ['O(1,3)', 4],
      ['Perm((1,2,3,0),(3,2,1,0))', 4],
      ['S(3)xZ(2)', 5],
      ['SO(2) x O(3)', 5],
    ];
    for (const [s, d] of forms) expect(parseGroup(s).d).toBe(d);
  });
  it('unknown groups and bad arguments are usage errors naming the known forms', () => {
    expect(errorOf(() => parseGroup('SU(3)')).message).toMatch(/known group.*S\(n\).*O\(1,3\)/);
    expect(errorOf(() => parseGroup('S(')).message).toMatch(/an integer/);
    expect(errorOf(() => parseGroup('S(3) Z(2)')).message).toMatch(/'x'/);
    expect(() => parseGroup('Perm((0,0,1))')).toThrow(/not a permutation/);
    expect(() => parseGroup('D(2)')).toThrow(/≥ 3/);
  });
  it('random elements of permutation groups are permutations that generate nothing outside the group', () => {
    const g = parseGroup('Perm((1,0,2,3),(0,1,3,2))'); // Z2 × Z2 on {0,1} and {2,3}

    const rng = new Rng(0);
    for (let k = 0; k < 20; k++) {
      const s = g.samplePerm!(rng);
      expect(new Set([s[0], s[1]])).toEqual(new Set([0, 1]));
      expect(new Set([s[2], s[3]])).toEqual(new Set([2, 3]));
    }
  });
});
