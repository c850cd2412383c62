import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dense, gradcheck, id, makeCtx, par, Rng, seq, Tensor } from '../../src/index.js';
import type { Para } from '../../src/index.js';
import { inverse, mat } from '../../src/linalg/matrix.js';
import { CELLS, cellMorphism, cellOf, stack, unrolled } from '../../src/nn/recurrent/index.js';
import type { Cell, RecurrentLayer } from '../../src/nn/recurrent/index.js';
import { morphismArb } from './arbitrary.js';

/**
 * The laws of recurrent networks as algebras, on random cells (the four named cells with random
 * weights, stacks of them, and cells written as arbitrary Para morphisms [S+A] → [S+B]), random
 * sequences and random initial states, in float64:
 *  - every cell's run is the lens of its unrolled composite (values and every gradient, with the
 *    pullback truncated or not): BPTT is that composite's pullback;
 *  - fold over a concatenation: fold(xs ++ ys) from s₀ = fold(ys) from fold(xs) from s₀;
 *  - fusion: for an algebra homomorphism h, h ∘ fold(c) = fold(c′) — for h an invertible linear
 *    change of state coordinates (c′ = (h⁻¹ ⊗ id) ; c ; (h ⊗ id)) and for the projection of a
 *    stack onto its lowest cell — and a map that is not a homomorphism fails it;
 *  - scan's last output is the output of the step after the fold (the readout of fold for the
 *    named cells, whose output is their h);
 *  - scan(stack(c₁, c₂)) = scan(c₁) >> scan(c₂);
 *  - the unrolled composite passes the gradient check.
 */

const RUNS = 30;
const KINDS: readonly RecurrentLayer[] = ['rnn', 'lstm', 'gru', 'mgu'];

function randn(shape: readonly number[], rng: Rng, scale = 1): Tensor {
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = scale * rng.normal();
  return t;
}

function close(a: ArrayLike<number>, b: ArrayLike<number>, what: string, tol = 1e-9): void {
  expect(a.length, what).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!), `${what}[${i}]: ${a[i]} vs ${b[i]}`).toBeLessThan(tol * (1 + Math.abs(b[i]!)));
}

/** A named cell with input a and hidden size h. */
const namedArb = (a: number): fc.Arbitrary<Cell> => fc.tuple(fc.constantFrom(...KINDS), fc.integer({ min: 1, max: 4 })).map(([k, h]) => CELLS[k](a, h));

/** A random cell with input a: named, a stack of two named cells, or a Para morphism read as a cell. */
const cellArb = (a: number): fc.Arbitrary<Cell> =>
  fc.oneof(
    namedArb(a),
    namedArb(a).chain((c1) => namedArb(c1.output).map((c2) => stack([c1, c2]))),
    fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 })).chain(([S, b]) => morphismArb(S + a, S + b, 1).map((f) => cellOf(f, S))),
  );

const problem = fc.record({
  a: fc.integer({ min: 1, max: 3 }),
  T: fc.integer({ min: 1, max: 5 }),
  seed: fc.integer({ min: 0, max: 1e6 }),
});

/** The lens of c's run at (θ, x, s0) pulled back from (dy, ds): everything as flat arrays. */
function runOf(c: Cell, theta: Tensor[], x: Tensor, s0: Tensor, dy: Tensor, ds: Tensor, bptt?: number) {
  const r = c.run(theta, x, s0, makeCtx(), bptt);
  const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
  const { dx, ds0 } = r.pullback(dy, ds, dTheta);
  return { y: r.y.data, s: r.s.data, dx: dx.data, ds0: ds0.data, dTheta: dTheta.flatMap((d) => Array.from(d.data)) };
}

describe('recurrent networks as algebras: laws on random cells (fast-check)', () => {
  it("every cell's run is the lens of its unrolled composite (values, dx, ds0, dθ; truncated or not)", () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), cellArb(p.a), fc.option(fc.integer({ min: 1, max: p.T }), { nil: undefined }))),
        ([{ a, T, seed }, c, bptt]) => {
          const rng = new Rng(seed);
          const theta = c.params.map((p) => randn(p.shape, rng, 0.6));
          const x = randn([2, T, a], rng),
            s0 = randn([2, c.state], rng);
          const dy = randn([2, T, c.output], rng),
            ds = randn([2, c.state], rng);
          const fused = runOf(c, theta, x, s0, dy, ds, bptt);
          const composite = runOf(cellOf(cellMorphism(c), c.state), theta, x, s0, dy, ds, bptt);
          for (const k of ['y', 's', 'dx', 'ds0', 'dTheta'] as const) close(fused[k], composite[k], `${c} T=${T} bptt=${bptt}: ${k}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('fold over a concatenation: fold(xs ++ ys) from s₀ = fold(ys) from fold(xs) from s₀ (and the scans concatenate)', () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), cellArb(p.a), fc.integer({ min: 1, max: 4 }))),
        ([{ a, T, seed }, c, T2]) => {
          const rng = new Rng(seed);
          const theta = c.params.map((p) => randn(p.shape, rng, 0.6));
          const xs = randn([2, T, a], rng),
            ys = randn([2, T2, a], rng),
            s0 = randn([2, c.state], rng);
          const both = Tensor.zeros([2, T + T2, a], 'float64');
          for (let b = 0; b < 2; b++) {
            both.data.set(xs.data.subarray(b * T * a, (b + 1) * T * a), b * (T + T2) * a);
            both.data.set(ys.data.subarray(b * T2 * a, (b + 1) * T2 * a), (b * (T + T2) + T) * a);
          }
          const whole = c.run(theta, both, s0, makeCtx());
          const first = c.run(theta, xs, s0, makeCtx());
          const second = c.run(theta, ys, first.s, makeCtx());
          close(whole.s.data, second.s.data, `${c}: fold`);
          const B = c.output;
          for (let b = 0; b < 2; b++) {
            close(whole.y.data.subarray(b * (T + T2) * B, (b * (T + T2) + T) * B), first.y.data.subarray(b * T * B, (b + 1) * T * B), `${c}: scan, first part`);
            close(
              whole.y.data.subarray((b * (T + T2) + T) * B, (b + 1) * (T + T2) * B),
              second.y.data.subarray(b * T2 * B, (b + 1) * T2 * B),
              `${c}: scan, second part`,
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('fusion: h ∘ fold(c) = fold(c′) for an invertible change of state coordinates h (c′ = (h⁻¹ ⊗ id) ; c ; (h ⊗ id)); a non-homomorphism fails', () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), namedArb(p.a))),
        ([{ a, T, seed }, c]) => {
          const rng = new Rng(seed);
          const S = c.state,
            B = c.output;
          const M = mat(
            S,
            S,
            Array.from({ length: S * S }, (_, i) => (i % (S + 1) === 0 ? 1 : 0) + (0.5 * rng.normal()) / Math.sqrt(S)),
          );
          const Minv = inverse(M);
          // h: s ↦ s·Mᵀ (a dense layer without bias); c′ reads its state through h⁻¹ and writes it through h
          const primed = seq(par(dense(S, S), ...(a > 0 ? [id(a)] : [])), cellMorphism(c), par(dense(S, S), id(B)));
          const theta = c.params.map((p) => randn(p.shape, rng, 0.6));
          const zeroBias = Tensor.zeros([S], 'float64');
          const thetaPrimed = [Tensor.of(Minv.data, [S, S], 'float64'), zeroBias, ...theta, Tensor.of(M.data, [S, S], 'float64'), zeroBias];
          const h = (s: Tensor): Tensor => dense(S, S).run([Tensor.of(M.data, [S, S], 'float64'), zeroBias], s);
          const x = randn([2, T, a], rng),
            s0 = randn([2, S], rng);
          const fold = c.run(theta, x, s0, makeCtx()).s;
          const foldPrimed = cellOf(primed, S).run(thetaPrimed, x, h(s0), makeCtx()).s;
          close(h(fold).data, foldPrimed.data, `${c}: h ∘ fold(c) = fold(c′)`, 1e-8);
          // negative control: k = 2h is not a homomorphism from c to c′ (the cell is not linear)
          const k = (s: Tensor): Tensor =>
            dense(S, S).run(
              [
                Tensor.of(
                  M.data.map((v) => 2 * v),
                  [S, S],
                  'float64',
                ),
                zeroBias,
              ],
              s,
            );
          const foldK = cellOf(primed, S).run(thetaPrimed, x, k(s0), makeCtx()).s;
          const gap = Math.max(...Array.from(k(fold).data, (v, i) => Math.abs(v - foldK.data[i]!)));
          expect(gap, `${c}: k = 2h must not commute with the folds`).toBeGreaterThan(1e-6);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('fusion: the projection of stack(c₁, c₂) onto c₁ is an algebra homomorphism, π₁ ∘ fold(stack(c₁, c₂)) = fold(c₁)', () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), namedArb(p.a)).chain(([q, c1]) => fc.tuple(fc.constant(q), fc.constant(c1), namedArb(c1.output)))),
        ([{ a, T, seed }, c1, c2]) => {
          const rng = new Rng(seed);
          const st = stack([c1, c2]);
          const theta = st.params.map((p) => randn(p.shape, rng, 0.6));
          const x = randn([2, T, a], rng),
            s0 = randn([2, st.state], rng);
          const s = c1.state;
          const pi = (t: Tensor): number[] => [0, 1].flatMap((b) => Array.from(t.data.subarray(b * st.state, b * st.state + s)));
          const s01 = Tensor.of(pi(s0), [2, s], 'float64');
          const foldStack = st.run(theta, x, s0, makeCtx()).s;
          const fold1 = c1.run(theta.slice(0, c1.params.length), x, s01, makeCtx()).s;
          close(pi(foldStack), fold1.data, `${st}: π₁ ∘ fold = fold(c₁)`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("scan's last output is the output of one more step after the fold (for the named cells: the readout of fold, its h)", () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), cellArb(p.a))),
        ([{ a, T, seed }, c]) => {
          const rng = new Rng(seed);
          const theta = c.params.map((p) => randn(p.shape, rng, 0.6));
          const x = randn([2, T, a], rng),
            s0 = randn([2, c.state], rng);
          const r = c.run(theta, x, s0, makeCtx());
          const B = c.output,
            S = c.state;
          const last = [0, 1].flatMap((b) => Array.from(r.y.data.subarray((b * T + T - 1) * B, (b * T + T) * B)));
          // one step of the cell morphism from fold(xs without its last step), on the last input
          const head = Tensor.zeros([2, T - 1, a], 'float64');
          for (let b = 0; b < 2; b++) head.data.set(x.data.subarray(b * T * a, (b * T + T - 1) * a), b * (T - 1) * a);
          const before = T > 1 ? c.run(theta, head, s0, makeCtx()).s : s0;
          const input = Tensor.zeros([2, S + a], 'float64');
          for (let b = 0; b < 2; b++) {
            input.data.set(before.data.subarray(b * S, (b + 1) * S), b * (S + a));
            input.data.set(x.data.subarray((b * T + T - 1) * a, (b * T + T) * a), b * (S + a) + S);
          }
          const out = cellMorphism(c).run(theta, input);
          close(
            last,
            [0, 1].flatMap((b) => Array.from(out.data.subarray(b * (S + B) + S, (b + 1) * (S + B)))),
            `${c}: last of scan`,
          );
          if (KINDS.some((k) => c.kind === `${k}_cell`)) {
            close(
              last,
              [0, 1].flatMap((b) => Array.from(r.s.data.subarray(b * S, b * S + B))),
              `${c}: last of scan = h of fold`,
            );
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('scan(stack(c₁, c₂)) = scan(c₁) >> scan(c₂): the stacked cell run step by step equals the layers run one after the other', () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), namedArb(p.a)).chain(([q, c1]) => fc.tuple(fc.constant(q), fc.constant(c1), namedArb(c1.output)))),
        ([{ a, T, seed }, c1, c2]) => {
          const rng = new Rng(seed);
          const st = stack([c1, c2]);
          const theta = st.params.map((p) => randn(p.shape, rng, 0.6));
          const x = randn([2, T, a], rng);
          const stepwise = cellOf(cellMorphism(st), st.state).run(theta, x, undefined, makeCtx()).y;
          const y1 = c1.run(theta.slice(0, c1.params.length), x, undefined, makeCtx()).y;
          const y2 = c2.run(theta.slice(c1.params.length), y1, undefined, makeCtx()).y;
          close(stepwise.data, y2.data, `${st}`);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the unrolled composite passes the float64 gradient check', () => {
    fc.assert(
      fc.property(
        problem.chain((p) => fc.tuple(fc.constant(p), cellArb(p.a))),
        ([{ a, T, seed }, c]) => {
          const u: Para = unrolled(cellMorphism(c), c.state, T);
          expect(u.dom).toEqual([c.state + T * a]);
          expect(u.cod).toEqual([T * c.output + c.state]);
          const r = gradcheck(u, { seed, batch: 2 });
          expect(r.relError, `${c} over ${T} steps: ${r.analytic} vs ${r.numeric}`).toBeLessThan(1e-6);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
