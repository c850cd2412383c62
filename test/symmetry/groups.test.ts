import { describe, expect, it } from 'vitest';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { equivariantBasis } from '../../src/symmetry/solve/solver.js';
import { composePerm, cyclic, dihedral, symmetric } from '../../src/symmetry/group/group.js';
import { permutationGroupOrder } from '../../src/symmetry/group/schreier-sims.js';
import { RUBIK_FACES, rubikFacelets, rubikGenerators } from '../../src/symmetry/group/rubik.js';

const dim = (G: string, i: string, o: string): number => equivariantBasis(parseGroup(G), parseRep(i), parseRep(o)).dim;

describe("EMLP's groups as EMLP users write them", () => {
  it('DirectProduct acts on V_G ⊗ V_H (Z(3)×Z(3) on V: 9, its regular representation); GxH and DirectSum on V_G ⊕ V_H (8)', () => {
    expect(dim('DirectProduct(Z(3),Z(3))', 'V', 'V')).toBe(9);
    expect(dim('Z(3)*Z(3)', 'V', 'V')).toBe(9);
    expect(dim('Z(3)xZ(3)', 'V', 'V')).toBe(8);
    expect(dim('DirectSum(Z(3),Z(3))', 'V', 'V')).toBe(8);
    expect(parseGroup('DirectProduct(Z(3),S(4))').d).toBe(12);
    expect(parseGroup('Z(3)*Z(3)').name).toBe('DirectProduct(Z(3),Z(3))');
    // a Lie factor: SO(2)⊗SO(2) on R²⊗R² = ψ₀ ⊕ ψ₀ ⊕ ψ₂ under the diagonal, but the product group is bigger
    const b = equivariantBasis(parseGroup('DirectProduct(SO(2),SO(3))'), parseRep('V'), parseRep('V'));
    expect(b.dim).toBe(2); // End(ψ₁ ⊠ 1) = C
    expect(b.randomElementError!).toBeLessThan(1e-12);
    expect(() => parseGroup('DirectProduct(S(100),S(100))')).toThrow(/at most 4096/);
  });

  it('SO+(1,3): T(4,0) has 4 invariants (the 3 pairings η⊗η and the Levi-Civita ε), O(1,3) has 3', () => {
    expect(dim('SO+(1,3)', 'T(4)', 'T(0)')).toBe(4);
    expect(dim('O(1,3)', 'T(4)', 'T(0)')).toBe(3);
    expect(dim('SO+(1,3)', 'T(2)', 'T(0)')).toBe(1);
    expect(parseGroup('SO+(1,3)').discrete).toEqual([]);
    expect(() => parseGroup('SO+(2,3)')).toThrow(/SO\+\(1,3\)/);
  });
});

describe("the Rubik's cube group from generators derived from the cube's geometry", () => {
  const gens = rubikGenerators();
  const id = Int32Array.from({ length: 48 }, (_, i) => i);
  const power = (g: Int32Array, k: number): Int32Array => {
    let p = id;
    for (let j = 0; j < k; j++) p = composePerm(g, p);
    return p;
  };
  const orderOf = (g: Int32Array): number => {
    let p = g,
      k = 1;
    while (!p.every((v, i) => v === i)) {
      p = composePerm(g, p);
      k++;
    }
    return k;
  };
  it('48 facelets; each face turn moves 20 of them and has order 4; opposite turns commute; R U R⁻¹ U⁻¹ has order 6', () => {
    expect(rubikFacelets().length).toBe(48);
    expect(RUBIK_FACES).toEqual(['U', 'D', 'F', 'B', 'R', 'L']);
    for (const g of gens) {
      expect(g.reduce((n, v, i) => n + (v !== i ? 1 : 0), 0)).toBe(20);
      expect(orderOf(g)).toBe(4);
    }
    const [U, D, F, B, R, L] = gens as [Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array];
    for (const [a, b] of [
      [U, D],
      [F, B],
      [R, L],
    ] as const)
      expect(Array.from(composePerm(a, b))).toEqual(Array.from(composePerm(b, a)));
    expect(Array.from(composePerm(U, R))).not.toEqual(Array.from(composePerm(R, U)));
    const commutator = composePerm(composePerm(composePerm(R, U), power(R, 3)), power(U, 3));
    expect(orderOf(commutator)).toBe(6);
  });

  it('generates a group of order 43 252 003 274 489 856 000 (Schreier–Sims), and RubiksCube() parses to it', () => {
    const order = permutationGroupOrder(gens, 48);
    expect(order).toBe(43252003274489856000n);
    expect(order).toBe(2n ** 27n * 3n ** 14n * 5n ** 3n * 7n ** 2n * 11n);
    const G = parseGroup('RubiksCube()');
    expect([G.name, G.d, G.perms!.length]).toEqual(['RubiksCube()', 48, 6]);
    // V → V: the commutant of the facelet permutation representation; edges and corners are separate orbits
    expect(equivariantBasis(G, parseRep('V'), parseRep('T(0)')).dim).toBe(2);
    // negative control: a wrong generator (U with two facelets swapped back) gives another group
    const broken = Int32Array.from(gens[0]!);
    const a = broken.findIndex((v, i) => v !== i),
      b = broken[a]!,
      c = broken.indexOf(a);
    broken[a] = a; // a stays, and the facelet that went to a goes where a went
    broken[c] = b;
    expect(permutationGroupOrder([broken, ...gens.slice(1)], 48)).not.toBe(43252003274489856000n);
  });

  it('Schreier–Sims on known groups: |S(6)| = 720, |D(8)| = 16, |Z(7)| = 7, |DirectProduct(Z(3),Z(3))| = 9', () => {
    expect(permutationGroupOrder(symmetric(6).perms!, 6)).toBe(720n);
    expect(permutationGroupOrder(dihedral(8).perms!, 8)).toBe(16n);
    expect(permutationGroupOrder(cyclic(7).perms!, 7)).toBe(7n);
    expect(permutationGroupOrder(parseGroup('DirectProduct(Z(3),Z(3))').perms!, 9)).toBe(9n);
    expect(permutationGroupOrder(parseGroup('S(4)xS(3)').perms!, 7)).toBe(144n);
  });
});
