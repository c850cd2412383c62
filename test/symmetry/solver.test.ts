import { describe, expect, it } from 'vitest';
import { basisMatrix, equivariantBasis, equivarianceError } from '../../src/symmetry/solve/solver.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';

const derive = (g: string, i: string, o: string, opts = {}) => equivariantBasis(parseGroup(g), parseRep(i), parseRep(o), opts);

describe('end solver: known dimensions', () => {
  const cases: [string, string, string, number][] = [
    ['S(5)', 'V', 'V', 2],
    ['S(5)', 'V', 'T(0)', 1],
    ['S(5)', 'T(2)', 'T(2)', 15],
    ['S(4)', 'T(2)', 'V', 5],
    ['Z(6)', 'V', 'V', 6],
    ['D(6)', 'V', 'V', 4],
    ['SO(2)', 'V', 'V', 2],
    ['O(2)', 'V', 'V', 1],
    ['SO(3)', 'V', 'V', 1],
    ['SO(3)', 'T(2)', 'V', 1],
    ['O(3)', 'T(2)', 'V', 0],
    ['O(3)', 'T(2)', 'T(2)', 3],
    ['SO(3)', 'T(3)', 'T(0)', 1],
    ['O(3)', 'T(4)', 'T(0)', 3],
    ['O(5)', 'T(2)', 'T(0)', 1],
    ['SO(4)', 'T(4)', 'T(0)', 4],
    ['O(1,3)', 'V', 'V', 1],
    ['O(1,3)', 'T(2)', 'T(0)', 1],
    ['O(1,3)', 'T(1,1)', 'T(0)', 1],
    ['S(3)xZ(2)', 'V', 'V', 6],
    ['O(3)', '3V+T(0)', '2V', 6],
  ];
  for (const [g, i, o, dim] of cases) {
    it(`${g}: ${i} → ${o} has dimension ${dim}`, () => {
      const b = derive(g, i, o);
      expect(b.dim).toBe(dim);
      expect(equivarianceError(b)).toBeLessThan(1e-9);
      expect(b.generatorResidual).toBeLessThan(1e-9);
    });
  }
});

describe('end solver: orthonormal basis', () => {
  it('rows are orthonormal (SO(3), T(2) → T(2))', () => {
    const b = derive('SO(3)', 'T(2)', 'T(2)');
    expect(b.dim).toBe(3);
    for (let i = 0; i < b.dim; i++)
      for (let j = 0; j < b.dim; j++) {
        const A = basisMatrix(b, i).data,
          B = basisMatrix(b, j).data;
        const d = A.reduce((s, v, k) => s + v * B[k]!, 0);
        expect(d).toBeCloseTo(i === j ? 1 : 0, 10);
      }
  });
});
