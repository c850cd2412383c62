import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Rng } from '../../src/random/rng.js';
import { equivariantBasis, measureError } from '../../src/symmetry/solve/solver.js';
import { parseGroup } from '../../src/symmetry/group/parse-group.js';
import { parseRep } from '../../src/symmetry/group/parse-rep.js';
import { repMatrix } from '../../src/symmetry/group/rep.js';
import { equivariantLinear } from '../../src/nn/equivariant/linear.js';
import { gated, withGates } from '../../src/nn/equivariant/gated.js';
import { seq } from '../../src/para/composite.js';
import { matmul } from '../../src/linalg/matrix.js';
import { act, randn, relErr } from './helpers.js';

const groups = ['S(3)', 'S(4)', 'Z(5)', 'D(4)', 'SO(2)', 'O(2)', 'SO(3)', 'O(3)', 'O(1,3)', 'S(2)xSO(2)'];
const atom = fc.constantFrom('V', 'T(0)', 'T(2)', 'dual(V)', 'T(1,1)');
const rep = fc
  .tuple(fc.array(fc.tuple(fc.integer({ min: 1, max: 2 }), atom), { minLength: 1, maxLength: 3 }))
  .map(([parts]) => parts.map(([k, a]) => (k > 1 ? `${k}${a}` : a)).join('+'));

describe('laws on random groups and representations (fast-check)', () => {
  it('ρ is a homomorphism on every representation: ρ(g)ρ(h) = ρ(gh)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...groups), rep, fc.integer({ min: 0, max: 1e6 }), (G, r, seed) => {
        const g = parseGroup(G),
          rng = new Rng(seed);
        const a = g.sample(rng),
          b = g.sample(rng);
        const R = parseRep(r);
        const lhs = matmul(repMatrix(R, a), repMatrix(R, b)),
          rhs = repMatrix(R, matmul(a, b));
        return lhs.data.every((v, i) => Math.abs(v - rhs.data[i]!) < 1e-8 * (1 + Math.abs(v)));
      }),
      { numRuns: 60 },
    );
  });
  it('every derived basis element commutes with random group elements', () => {
    fc.assert(
      fc.property(fc.constantFrom(...groups), rep, rep, fc.integer({ min: 0, max: 1e6 }), (G, ri, ro, seed) => {
        const g = parseGroup(G);
        const b = equivariantBasis(g, parseRep(ri), parseRep(ro), { seed });
        const el = g.sample(new Rng(seed + 1));
        const err = b.dim ? measureError(b.basis, repMatrix(parseRep(ro), el), repMatrix(parseRep(ri), el)) : 0;
        return err < 1e-8;
      }),
      { numRuns: 60 },
    );
  });
  it('Hom_G(A, B⊕C) = Hom_G(A, B) ⊕ Hom_G(A, C): dimensions add', () => {
    fc.assert(
      fc.property(fc.constantFrom(...groups), rep, rep, rep, (G, a, b, c) => {
        const g = parseGroup(G),
          d = (x: string, y: string) => equivariantBasis(g, parseRep(x), parseRep(y), { samples: 0 }).dim;
        return d(a, `${b}+${c}`) === d(a, b) + d(a, c);
      }),
      { numRuns: 40 },
    );
  });
  it('a composite of equivariant layers and gates is equivariant (float32, ≤ 1e-5)', () => {
    fc.assert(
      fc.property(fc.constantFrom('S(4)', 'D(4)', 'SO(2)', 'O(3)', 'SO(3)'), rep, rep, fc.integer({ min: 0, max: 1e6 }), (G, ri, rh) => {
        const g = parseGroup(G);
        const f = seq(equivariantLinear(g, ri, withGates(parseRep(rh), g.d)), gated(g, rh), equivariantLinear(g, rh, ri));
        const theta = f.init(3);
        const x = randn([4, f.dom![0]!], 5);
        const el = g.sample(new Rng(9));
        const Ri = repMatrix(parseRep(ri), el);
        return relErr(f.run(theta, act(Ri, x)), act(Ri, f.run(theta, x))) <= 1e-5;
      }),
      { numRuns: 30 },
    );
  });
});
