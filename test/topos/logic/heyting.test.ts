import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RangeArgError } from '../../../src/errors.js';
import { booleanAlgebra, checkLaws, godel, kleeneDienes, lukasiewicz, productLogic, truthAlgebra, unitSamples } from '../../../src/topos/index.js';
import type { HeytingAlgebra } from '../../../src/topos/index.js';

const unit = fc.double({ min: 0, max: 1, noNaN: true });
const law = (A: HeytingAlgebra<number>, name: string) => checkLaws(A, A === booleanAlgebra ? [0, 1] : unitSamples(5, 1)).results.find((r) => r.name === name)!;

describe('law checker', () => {
  it('Gödel and Boolean pass every Heyting law; Boolean also the classical ones', () => {
    const g = checkLaws(godel, unitSamples(5, 0));
    expect(g.heyting).toBe(true);
    expect(g.boolean).toBe(false);
    expect(g.failed).toEqual(['excluded-middle', 'double-negation']);
    const b = checkLaws(booleanAlgebra, [0, 1]);
    expect(b.heyting && b.boolean && b.residuated).toBe(true);
    expect(b.failed).toEqual([]);
  });

  it('Kleene–Dienes fails the adjunction, identity, modus ponens and non-contradiction, with counterexamples', () => {
    const r = checkLaws(kleeneDienes, unitSamples(5, 0));
    expect(r.heyting).toBe(false);
    expect(r.residuated).toBe(false);
    for (const name of ['adjunction', 'identity', 'modus-ponens', 'non-contradiction', 'residuation']) expect(r.failed).toContain(name);
    expect(r.failed).not.toContain('distributive');
    const adj = r.results.find((x) => x.name === 'adjunction')!;
    const { a, b, x } = adj.counterexample!.values;
    const [na, nb, nx] = [Number(a), Number(b), Number(x)];
    // the counterexample really breaks a ∧ x ≤ b ⇔ x ≤ (a ⇒ b)
    expect(Math.min(na, nx) <= nb).not.toBe(nx <= Math.max(1 - na, nb));
    expect(kleeneDienes.implies(0.5, 0.5)).toBe(0.5); // p ⇒ p ≠ 1
  });

  it('Łukasiewicz and product are residuated but not Heyting', () => {
    for (const A of [lukasiewicz, productLogic]) {
      const r = checkLaws(A, unitSamples(5, 0));
      expect(r.residuated).toBe(true);
      expect(r.heyting).toBe(false);
      expect(r.failed).toContain('adjunction');
    }
    expect(law(lukasiewicz, 'non-contradiction').holds).toBe(false);
    expect(law(productLogic, 'non-contradiction').holds).toBe(true);
  });

  it('rejects samples that are not truth values, naming them', () => {
    expect(() => checkLaws(godel, [0, 1.5])).toThrow(/1\.5 is outside \[0, 1\]/);
    expect(() => checkLaws(booleanAlgebra, [0, 0.5])).toThrow(RangeArgError);
    expect(() => checkLaws(godel, [])).toThrow(RangeArgError);
  });
});

describe('Heyting algebras: properties on random truth values', () => {
  it('Gödel: a ⇒ b is the largest x with a ∧ x ≤ b (the adjunction)', () => {
    fc.assert(
      fc.property(unit, unit, unit, (a, b, x) => {
        expect(godel.leq(godel.meet(a, x), b)).toBe(godel.leq(x, godel.implies(a, b)));
        expect(godel.meet(a, godel.implies(a, b)) <= b).toBe(true);
      }),
    );
  });

  it('Gödel: distributive lattice, a ⇒ a = 1, a ∧ ¬a = 0', () => {
    fc.assert(
      fc.property(unit, unit, unit, (a, b, c) => {
        expect(godel.meet(a, godel.join(b, c))).toBe(godel.join(godel.meet(a, b), godel.meet(a, c)));
        expect(godel.implies(a, a)).toBe(1);
        expect(godel.meet(a, godel.not(a))).toBe(0);
      }),
    );
  });

  it('Łukasiewicz and product: ⇒ is the residuum of ⊗', () => {
    for (const A of [lukasiewicz, productLogic]) {
      fc.assert(
        fc.property(unit, unit, unit, (a, b, x) => {
          fc.pre(Math.abs(A.tensor(a, x) - b) > 1e-6 && Math.abs(x - A.implies(a, b)) > 1e-6); // away from the rounding boundary
          expect(A.leq(A.tensor(a, x), b)).toBe(A.leq(x, A.implies(a, b)));
        }),
      );
    }
  });

  it('Kleene–Dienes agrees with Boolean logic on {0, 1} but not inside (0, 1)', () => {
    for (const a of [0, 1]) for (const b of [0, 1]) expect(kleeneDienes.implies(a, b)).toBe(booleanAlgebra.implies(a, b));
    fc.assert(
      fc.property(fc.double({ min: 0.01, max: 0.99, noNaN: true }), (a) => {
        expect(kleeneDienes.implies(a, a)).toBeLessThan(1);
        expect(godel.implies(a, a)).toBe(1);
      }),
    );
  });

  it('every [0,1] operation rejects values outside [0,1] with a typed error naming the value', () => {
    for (const A of [godel, lukasiewicz, productLogic, kleeneDienes]) {
      expect(() => A.implies(1.2, 0.5)).toThrow(/1\.2/);
      expect(() => A.meet(0.5, -0.1)).toThrow(RangeArgError);
      expect(() => A.not(Number.NaN)).toThrow(RangeArgError);
    }
    expect(() => booleanAlgebra.join(0.3, 1)).toThrow(/0\.3 is not 0 or 1/);
  });

  it('logics by name', () => {
    expect(truthAlgebra('kleene-dienes')).toBe(kleeneDienes);
    expect(truthAlgebra('product')).toBe(productLogic);
    expect(() => truthAlgebra('intuitionistic')).toThrow(/unknown logic 'intuitionistic'; known: godel, boolean/);
  });
});
