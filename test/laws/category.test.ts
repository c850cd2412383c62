import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { id, makeCtx, Par, par, parseSpec, residual, Rng, Seq, seq, Tensor } from '../../src/index.js';
import type { Residual } from '../../src/para/structure.js';
import type { Para } from '../../src/index.js';
import { morphismArb, sizes, structure } from './arbitrary.js';

const RUNS = 120;
/** The laws hold for reparameterised morphisms too (tie, cubic, linear). */
const R = { reparams: true };

/** Values, parameter gradients and input gradient of f at random (θ, x, dy), in float64. */
function evaluate(f: Para, theta: Tensor[], x: Tensor, dy: Tensor | undefined, seed = 3) {
  const lens = f.forward(theta, x, makeCtx({ rng: new Rng(seed) }));
  const cot = dy ?? randn(lens.y.shape, new Rng(99));
  const dTheta = theta.map((t) => Tensor.zeros(t.shape, 'float64'));
  const dx = lens.pullback(cot, dTheta);
  return { y: Array.from(lens.y.data), dx: Array.from(dx.data), dTheta: dTheta.flatMap((d) => Array.from(d.data)), cot };
}

function randn(shape: readonly number[], rng: Rng): Tensor {
  const t = Tensor.zeros(shape, 'float64');
  for (let i = 0; i < t.size; i++) t.data[i] = rng.normal();
  return t;
}

function close(a: number[], b: number[]): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Math.abs(a[i]! - b[i]!)).toBeLessThan(1e-10 * (1 + Math.abs(a[i]!)));
}

const triple = sizes.chain((a) => sizes.chain((b) => sizes.chain((c) => sizes.map((d) => [a, b, c, d] as const))));

describe('laws of the Para category on random morphisms (fast-check)', () => {
  it('associativity: (f >> g) >> h = f >> (g >> h) on values and all gradients', () => {
    fc.assert(
      fc.property(
        triple.chain(([a, b, c, d]) => fc.tuple(morphismArb(a, b, 2, R), morphismArb(b, c, 2, R), morphismArb(c, d, 2, R), fc.integer({ min: 0, max: 1e6 }))),
        ([f, g, h, s]) => {
          // nested composites built without the flattening that seq() does
          const left = new Seq([new Seq([f, g]), h]);
          const right = new Seq([f, new Seq([g, h])]);
          const rng = new Rng(s);
          const theta = left.init(rng, 'float64');
          const x = randn([3, ...f.dom!], rng);
          const L = evaluate(left, theta, x, undefined);
          const R = evaluate(right, theta, x, L.cot);
          close(L.y, R.y);
          close(L.dx, R.dx);
          close(L.dTheta, R.dTheta);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('identities: id >> f = f = f >> id', () => {
    fc.assert(
      fc.property(
        sizes.chain((a) => sizes.chain((b) => fc.tuple(morphismArb(a, b, 2, R), fc.integer({ min: 0, max: 1e6 })))),
        ([f, s]) => {
          const rng = new Rng(s);
          const theta = f.init(rng, 'float64');
          const x = randn([2, ...f.dom!], rng);
          const F = evaluate(f, theta, x, undefined);
          for (const g of [new Seq([id(f.dom!), f]), new Seq([f, id(f.cod!)])]) {
            const G = evaluate(g, theta, x, F.cot);
            close(F.y, G.y);
            close(F.dx, G.dx);
            close(F.dTheta, G.dTheta);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('backprop: the pullback of f >> g is the pullback of f after the pullback of g', () => {
    fc.assert(
      fc.property(
        sizes.chain((a) =>
          sizes.chain((b) => sizes.chain((c) => fc.tuple(morphismArb(a, b, 2, R), morphismArb(b, c, 2, R), fc.integer({ min: 0, max: 1e6 })))),
        ),
        ([f, g, s]) => {
          const rng = new Rng(s);
          const tf = f.init(rng, 'float64'),
            tg = g.init(rng, 'float64');
          const x = randn([3, ...f.dom!], rng);
          const ctx = makeCtx();
          const lf = f.forward(tf, x, ctx);
          const lg = g.forward(tg, lf.y, ctx);
          const dy = randn(lg.y.shape, rng);
          const dtg = tg.map((t) => Tensor.zeros(t.shape, 'float64'));
          const dtf = tf.map((t) => Tensor.zeros(t.shape, 'float64'));
          const dx = lf.pullback(lg.pullback(dy, dtg), dtf);
          const C = evaluate(seq(f, g), [...tf, ...tg], x, dy);
          close(C.y, Array.from(lg.y.data));
          close(C.dx, Array.from(dx.data));
          close(
            C.dTheta,
            [...dtf, ...dtg].flatMap((d) => Array.from(d.data)),
          );
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('interchange: (f @ g) >> (h @ k) = (f >> h) @ (g >> k)', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(sizes, sizes, sizes, sizes, sizes, sizes)
          .chain(([a, b, c, a2, b2, c2]) =>
            fc.tuple(morphismArb(a, b, 2, R), morphismArb(a2, b2, 2, R), morphismArb(b, c, 2, R), morphismArb(b2, c2, 2, R), fc.integer({ min: 0, max: 1e6 })),
          ),
        ([f, g, h, k, s]) => {
          const left = new Seq([new Par([f, g]), new Par([h, k])]);
          const right = new Par([new Seq([f, h]), new Seq([g, k])]);
          const rng = new Rng(s);
          const [tf, tg, th, tk] = [f, g, h, k].map((m) => m.init(rng, 'float64'));
          const x = randn([2, ...left.dom!], rng);
          const L = evaluate(left, [...tf!, ...tg!, ...th!, ...tk!], x, undefined);
          const R = evaluate(right, [...tf!, ...th!, ...tg!, ...tk!], x, L.cot);
          close(L.y, R.y);
          close(L.dx, R.dx);
          // parameter order differs between the two sides: compare per factor
          const n = (t: Tensor[]): number => t.reduce((s2, u) => s2 + u.size, 0);
          const [nf, ng, nh] = [n(tf!), n(tg!), n(th!)];
          const Lp = { f: L.dTheta.slice(0, nf), g: L.dTheta.slice(nf, nf + ng), h: L.dTheta.slice(nf + ng, nf + ng + nh), k: L.dTheta.slice(nf + ng + nh) };
          const Rp = { f: R.dTheta.slice(0, nf), h: R.dTheta.slice(nf, nf + nh), g: R.dTheta.slice(nf + nh, nf + nh + ng), k: R.dTheta.slice(nf + nh + ng) };
          for (const key of ['f', 'g', 'h', 'k'] as const) close(Lp[key], Rp[key]);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('monoidal associativity and unit: (f @ g) @ h = f @ (g @ h), f @ id(0)-free par of one factor is f', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(sizes, sizes, sizes)
          .chain(([a, b, c]) => fc.tuple(morphismArb(a, b, 2, R), morphismArb(b, c, 2, R), morphismArb(c, a, 2, R), fc.integer({ min: 0, max: 1e6 }))),
        ([f, g, h, s]) => {
          const left = new Par([new Par([f, g]), h]);
          const right = new Par([f, new Par([g, h])]);
          const rng = new Rng(s);
          const theta = left.init(rng, 'float64');
          const x = randn([2, ...left.dom!], rng);
          const L = evaluate(left, theta, x, undefined);
          const R = evaluate(right, theta, x, L.cot);
          close(L.y, R.y);
          close(L.dx, R.dx);
          close(L.dTheta, R.dTheta);
          expect(par(f)).toBe(f);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('printing a morphism gives a spec that parses back to the same morphism: the same structure, values and gradients', () => {
    fc.assert(
      fc.property(
        sizes.chain((a) => sizes.chain((b) => fc.tuple(morphismArb(a, b, 3, R), fc.integer({ min: 0, max: 1e6 })))),
        ([f, s]) => {
          const g = parseSpec(String(f));
          expect(structure(g)).toEqual(structure(f));
          expect(String(g)).toBe(String(f));
          expect(g.params.map((p) => `${p.name}:${p.shape}`)).toEqual(f.params.map((p) => `${p.name}:${p.shape}`));
          const rng = new Rng(s);
          const theta = f.init(rng, 'float64');
          const x = randn([2, ...f.dom!], rng);
          const F = evaluate(f, theta, x, undefined);
          const G = evaluate(g, theta, x, F.cot);
          close(F.y, G.y);
          close(F.dTheta, G.dTheta);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('residual(f) is copy >> (f @ id) >> add: its direct lens gives the values and all gradients of the composite', () => {
    fc.assert(
      fc.property(
        sizes.chain((a) => fc.tuple(morphismArb(a, a), fc.integer({ min: 0, max: 1e6 }))),
        ([f, s]) => {
          const r = residual(f) as Residual;
          const rng = new Rng(s);
          const theta = r.init(rng, 'float64');
          const x = randn([3, ...f.dom!], rng);
          const L = evaluate(r, theta, x, undefined);
          const R = evaluate(r.composite!, theta, x, L.cot);
          close(L.y, R.y);
          close(L.dx, R.dx);
          close(L.dTheta, R.dTheta);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
