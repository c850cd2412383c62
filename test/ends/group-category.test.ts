import { describe, expect, it } from 'vitest';
import { FunctorError } from '../../src/category/index.js';
import { cycleNotation, groupCategory } from '../../src/ends/index.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { checkCategory } from '../../src/category/finite.js';
import { TooLargeError } from '../../src/errors.js';

describe('a finite group as a one-object category', () => {
  it('enumerates every element (orders) and the table is a group', () => {
    for (const [g, n] of [
      ['S(3)', 6],
      ['S(4)', 24],
      ['Z(7)', 7],
      ['D(5)', 10],
      ['O(1)', 2],
      ['Trans(2,3)', 6],
      ['S(3)xZ(2)', 12],
      ['Perm((1,0,2,3),(0,1,3,2))', 4],
    ] as const) {
      const G = groupCategory(parseGroup(g));
      expect(G.order, g).toBe(n);
      expect(new Set(G.category.arrows.map((a) => a.name)).size, g).toBe(n);
      checkCategory(G.category); // identity and associativity
      for (let x = 0; x < n; x++) expect(G.category.compose(x, G.inverse[x]!)).toBe(0);
    }
  });

  it('composition is the matrix product of the elements on V', () => {
    const G = groupCategory(parseGroup('D(4)'));
    for (let g = 0; g < G.order; g++)
      for (let f = 0; f < G.order; f++) {
        const A = G.matrices[g]!,
          B = G.matrices[f]!,
          AB = G.matrices[G.category.compose(g, f)]!;
        for (let i = 0; i < 4; i++)
          for (let j = 0; j < 4; j++) {
            let s = 0;
            for (let k = 0; k < 4; k++) s += A.data[i * 4 + k]! * B.data[k * 4 + j]!;
            expect(AB.data[i * 4 + j]).toBe(s);
          }
      }
  });

  it('names permutations in cycle notation', () => {
    expect(cycleNotation([1, 2, 0, 4, 3])).toBe('(0 1 2)(3 4)');
    expect(cycleNotation([0, 1, 2])).toBe('e');
  });

  it('refuses Lie groups with a FunctorError, groups beyond maxOrder with a TooLargeError (before enumerating when the order is known)', () => {
    expect(() => groupCategory(parseGroup('SO(3)'))).toThrow(/SO\(3\) is a Lie group, not a finite one/);
    expect(() => groupCategory(parseGroup('S(5)'), { maxOrder: 100 })).toThrow(/S\(5\) has more than 100 elements \(120\)/);
    expect(() => groupCategory(parseGroup('S(5)'), { maxOrder: 100 })).toThrow(TooLargeError);
    // Perm(…) has no order in its expression: the enumeration stops at maxOrder + 1
    expect(() => groupCategory(parseGroup('Perm((1,2,3,4,0),(1,0,2,3,4))'), { maxOrder: 100 })).toThrow(/has more than 100 elements \(more\)/);
    expect(() => groupCategory(parseGroup('SO(2)'))).toThrow(FunctorError);
  });
});
