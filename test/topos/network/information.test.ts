import { describe, expect, it } from 'vitest';
import { parsePoset } from '../../../src/category/index.js';
import fc from 'fast-check';
import { xor } from '../../../src/data/generated.js';
import { mse } from '../../../src/nn/loss.js';
import { parseSpec } from '../../../src/catalogue/index.js';
import { train } from '../../../src/train/train.js';
import {
  conditionalAction,
  cocycleDefect,
  conditionTheory,
  contentCounting,
  contentNormalised,
  empiricalDistribution,
  shannonEntropy,
  informationCBH,
  layerInformation,
  mutualInformationK,
  semanticPhi,
  semanticMutualInformation,
  sieveAlgebra,
  stateAlgebra,
  stateMeasure,
  theoryOf,
  conditionDistribution,
} from '../../../src/topos/index.js';
import { ToposError } from '../../../src/category/errors.js';
import type { Sieve } from '../../../src/topos/index.js';

describe('semantic information (Carnap–Bar-Hillel, conditioning, φ^Q)', () => {
  const L = stateAlgebra(4); // states 0..3
  const p = [0.1, 0.2, 0.3, 0.4];

  it('content and information of propositions, by hand', () => {
    expect(contentNormalised(p, 0b0011n)).toBeCloseTo(0.7, 12); // m = 0.3
    expect(contentNormalised(p, 0b0011)).toBeCloseTo(0.7, 12); // a number bitmask reads the same
    expect(contentCounting(4, 0b0011n)).toBe(2); // two of the four states excluded
    expect(informationCBH(p, 0b0011n)).toBeCloseTo(-Math.log2(0.3), 12);
    expect(informationCBH(p, 0b1111n)).toBe(0); // a tautology says nothing
    expect(informationCBH(p, 0n)).toBe(Infinity); // a contradiction
    // a theory is the conjunction of its axioms
    expect(theoryOf(L, [0b0111n, 0b1110n])).toBe(0b0110n);
  });

  it('T|Q = Q ⇒ T; φ^Q(T) = ψ(T|Q) − ψ(T) by hand', () => {
    const T = 0b0001n;
    const Q = 0b0011n;
    expect(conditionTheory(L, T, Q)).toBe(0b1101n); // ¬Q ∨ T = {0, 2, 3}
    const psi = (t: bigint): number => informationCBH(p, t);
    expect(semanticPhi(L, psi, Q, T)).toBeCloseTo(-Math.log2(0.8) + Math.log2(0.1), 12);
  });

  it('φ is a 1-cocycle and I(Q1;Q2) is symmetric and equals φ^{Q1}(T) − φ^{Q1}(T|Q2) (random propositions)', () => {
    const prop = fc.bigInt({ min: 1n, max: 15n });
    fc.assert(
      fc.property(prop, prop, prop, fc.array(fc.double({ min: 0.05, max: 1, noNaN: true }), { minLength: 4, maxLength: 4 }), (Q1, Q2, T, w) => {
        const z = w.reduce((a, b) => a + b, 0);
        const q = w.map((x) => x / z);
        const psi = (t: bigint): number => contentNormalised(q, t);
        expect(semanticPhi(L, psi, L.meet(Q1, Q2), T)).toBeCloseTo(semanticPhi(L, psi, Q2, T) + semanticPhi(L, psi, Q1, conditionTheory(L, T, Q2)), 12);
        const I12 = semanticMutualInformation(L, psi, Q1, Q2, T);
        expect(I12).toBeCloseTo(semanticMutualInformation(L, psi, Q2, Q1, T), 12);
        expect(I12).toBeCloseTo(semanticPhi(L, psi, Q1, T) - semanticPhi(L, psi, Q1, conditionTheory(L, T, Q2)), 12);
      }),
      { numRuns: 200 },
    );
  });

  it('in an intuitionistic language (sieves of the Sierpiński site) the same identities hold', () => {
    const C = parsePoset('0<1');
    const O = sieveAlgebra(C, 1);
    const weight = (S: Sieve): number => S.arrows.length; // a monotone valuation
    for (const Q1 of O.elements())
      for (const Q2 of O.elements())
        for (const T of O.elements()) {
          expect(semanticPhi(O, weight, O.meet(Q1, Q2), T)).toBe(semanticPhi(O, weight, Q2, T) + semanticPhi(O, weight, Q1, conditionTheory(O, T, Q2)));
        }
    // T|Q for T = ∅ and Q = m (the middle value) is ¬m = ∅, not the complement: the logic is not Boolean
    const [bot, m] = O.elements();
    expect(conditionTheory(O, bot!, m!).arrows).toEqual([]);
  });
});

describe('state sets without a width limit, probabilities checked', () => {
  it('64 states: the set of states 0 … 31 has measure 1/2 under the uniform law (1 << s wrapped at 32)', () => {
    expect(stateMeasure(Array(64).fill(1 / 64), 2 ** 32 - 1)).toBe(0.5);
    expect(stateMeasure(Array(64).fill(1 / 64), (1n << 32n) - 1n)).toBe(0.5);
    expect(stateMeasure(Array(40).fill(1 / 40), 1n << 39n)).toBe(1 / 40);
  });

  it("Belfiore–Bennequin's L²₃: 2 predicates, 3 individuals, 64 states; a simple proposition has content 32", () => {
    // a state is an assignment of P and Q to a, b, c: bit 2·i + k says whether individual i has predicate k
    const holds = (i: number, k: number): bigint => {
      let A = 0n;
      for (let s = 0; s < 64; s++) if ((s >> (2 * i + k)) & 1) A |= 1n << BigInt(s);
      return A;
    };
    const Pa = holds(0, 0),
      Qb = holds(1, 1);
    const L = stateAlgebra(64);
    expect(contentCounting(64, Pa)).toBe(32);
    expect(contentCounting(64, L.meet(Pa, Qb))).toBe(48); // "Pa and Qb" holds in 16 states
    expect(contentCounting(64, L.join(Pa, Qb))).toBe(16);
    expect(contentCounting(64, L.top)).toBe(0);
    expect(contentNormalised(Array(64).fill(1 / 64), Pa)).toBe(0.5);
    expect(() => L.elements()).toThrow(/listed only up to 20 states/);
  });

  it('refuses p that is not a probability vector and sets naming states that do not exist', () => {
    expect(() => stateMeasure([-1, 2], 1)).toThrow(ToposError);
    expect(() => stateMeasure([-1, 2], 1)).toThrow(/p\[0\] = -1/);
    expect(() => contentNormalised([1, 1, 1, 1], 1)).toThrow(/sum to 4, not 1/);
    expect(() => informationCBH([0.5, Number.NaN, 0.5], 1)).toThrow(/p\[1\] = NaN/);
    expect(() => stateMeasure([0.5, 0.5], 0b100)).toThrow(/names state 2 but there are only 2 states/);
    expect(() => stateMeasure([0.5, 0.5], -1)).toThrow(/non-negative/);
    expect(() => stateMeasure([0.5, 0.5], 2 ** 60)).toThrow(/non-negative integer bitmask/);
  });
});

describe('information cohomology (Baudot–Bennequin)', () => {
  // X, Y independent fair bits and Z = X xor Y
  const P = empiricalDistribution([
    [0, 0, 0],
    [0, 1, 1],
    [1, 0, 1],
    [1, 1, 0],
  ]);

  it('entropies and I_k of XOR by hand: H = 1 per bit, H(XYZ) = 2, I2 = 0, I3 = −1 (pure synergy)', () => {
    expect(shannonEntropy(P, [0])).toBeCloseTo(1, 12);
    expect(shannonEntropy(P, [0, 1])).toBeCloseTo(2, 12);
    expect(shannonEntropy(P, [0, 1, 2])).toBeCloseTo(2, 12);
    expect(mutualInformationK(P, [0, 1])).toBeCloseTo(0, 12);
    expect(mutualInformationK(P, [0, 1, 2])).toBeCloseTo(-1, 12);
    // X.H(Z): knowing X, Z is still a fair bit
    expect(conditionalAction(P, [0], shannonEntropy, [2])).toBeCloseTo(1, 12);
    expect(conditionDistribution(P, [0], [1]).outcomes.length).toBe(2);
  });

  it('the 1-cocycle identity H(XY) = H(X) + X.H(Y) on random distributions', () => {
    const row = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 });
    fc.assert(
      fc.property(
        fc.array(row, { minLength: 1, maxLength: 30 }),
        fc.subarray([0, 1, 2, 3], { minLength: 1 }),
        fc.subarray([0, 1, 2, 3], { minLength: 1 }),
        (rows, X, Y) => {
          const Q = empiricalDistribution(rows);
          expect(Math.abs(cocycleDefect(Q, X, Y))).toBeLessThan(1e-12);
          // I2 = H(Y) − X.H(Y) ≥ 0
          expect(mutualInformationK(Q, [X[0]!, Y[0]!])).toBeCloseTo(shannonEntropy(Q, [Y[0]!]) - conditionalAction(Q, [X[0]!], shannonEntropy, [Y[0]!]), 12);
          expect(mutualInformationK(Q, [X[0]!, Y[0]!])).toBeGreaterThan(-1e-12);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('demo: the hidden layers of the trained XOR network', () => {
    const model = parseSpec('dense(2,4) >> sigmoid >> dense(4,4) >> sigmoid >> dense(4,1) >> sigmoid');
    const r = train(model, xor(), { loss: mse, epochs: 6000, lr: 0.5, batch: 1, seed: 0 });
    expect(r.accuracy).toBe(1);
    const info = layerInformation(model, r.theta, xor().x, { bins: 2 });
    expect(info.map((l) => l.vertex)).toEqual(['2:sigmoid', '4:sigmoid', '6:sigmoid']);
    for (const l of info) {
      expect(l.maxCocycleDefect).toBeLessThan(1e-12);
      // 4 equally likely inputs: at most 2 bits
      expect(l.jointEntropy).toBeLessThanOrEqual(2 + 1e-12);
      l.unitEntropies.forEach((h) => expect(h).toBeLessThanOrEqual(1 + 1e-12));
    }
    // the output layer separates XOR: its one binarised unit has 1 bit
    expect(info[2]!.unitEntropies[0]).toBeCloseTo(1, 12);
  });
});

describe('discretisation', () => {
  it("discretiseColumns: equal-width bins between each column's min and max; constant columns get bin 0", async () => {
    const { discretiseColumns } = await import('../../../src/topos/index.js');
    expect(
      discretiseColumns(
        [
          [0, 5],
          [0.5, 5],
          [1, 5],
          [0.26, 5],
        ],
        2,
      ),
    ).toEqual([
      [0, 0],
      [1, 0],
      [1, 0],
      [0, 0],
    ]);
    expect(discretiseColumns([[0], [0.34], [1]], 3)).toEqual([[0], [1], [2]]);
    expect(() => discretiseColumns([[0]], 1)).toThrow(/bins/);
  });

  it('discretiseActivity rounds to the grid and removes −0', async () => {
    const { discretiseActivity } = await import('../../../src/topos/index.js');
    expect(discretiseActivity([0.26, -0.01, 0.74], 0.5)).toEqual([0.5, 0, 0.5]);
    expect(Object.is(discretiseActivity([-0.01], 0.5)[0], 0)).toBe(true);
  });
});
