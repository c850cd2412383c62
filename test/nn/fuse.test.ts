import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  conv1d,
  conv2d,
  dense,
  elementwise,
  gradcheck,
  makeCtx,
  moons,
  mse,
  par,
  parseSpec,
  primitive,
  residual,
  Rng,
  seq,
  Tensor,
  Trainer,
} from '../../src/index.js';
import type { Ctx, Para } from '../../src/index.js';
import { Fused, fuseActivations } from '../../src/nn/fuse.js';
import { mapSet } from '../../src/nn/colimit/map.js';
import { conv1dPeriodic, conv2dPeriodic } from '../../src/nn/equivariant/conv.js';
import { kfacModel } from '../../src/optim/kfac.js';
import { setBackend } from '../../src/tensor/registry.js';
import type { Backend } from '../../src/tensor/backend.js';
import { jsBackend } from '../../src/tensor/js-backend.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';
import { structure } from '../laws/arbitrary.js';

// The fusion rewrite (src/nn/fuse.ts) puts one lens in place of `layer >> act`. It must be the
// composite's lens exactly: the same bits of y, dx and dθ, on every backend, in float32 and
// float64 — so training with it (the Trainer applies it) computes what the composite computes.
const wasm = await createWasmBackend({ name: 'wasm-fusion', minGemmVolume: 0, minElements: 0 });
afterAll(() => wasm.dispose());

/** A context that counts its allocations (a fused pair allocates one forward buffer instead of two). */
function countingCtx(): Ctx & { count: number } {
  const base = makeCtx({ training: true });
  const ctx = {
    ...base,
    count: 0,
    alloc: (...a: Parameters<Ctx['alloc']>) => {
      ctx.count++;
      return base.alloc(...a);
    },
  };
  return ctx;
}

const bits = (t: Tensor): string => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('hex');

/** y, dx and dθ of f's lens at (θ, x) pulled back from dy, as bits, and the allocations of its forward. */
function lensBits(f: Para, theta: Tensor[], x: Tensor, dy: Tensor, needDx = true) {
  const ctx = countingCtx();
  const lens = f.forward(theta, x, ctx);
  const forwardAllocs = ctx.count;
  const dTheta = theta.map((t) => Tensor.zeros(t.shape, t.dtype));
  const dx = lens.pullback(dy, dTheta, needDx);
  return { y: bits(lens.y), dx: needDx ? bits(dx) : dx.shape.join(','), dTheta: dTheta.map(bits), forwardAllocs };
}

function randn(shape: readonly number[], rng: Rng, dtype: 'float32' | 'float64'): Tensor {
  const t = Tensor.zeros(shape, dtype);
  t.data.forEach((_, k) => (t.data[k] = rng.normal()));
  return t;
}

// the layers that can apply an activation in their own pass, fixed to a domain, with a batch size
const LAYERS: readonly (readonly [number, Para])[] = [
  [1, dense(3, 5)],
  [7, dense(33, 17)],
  [64, dense(100, 40)],
  [3, conv2d(2, 5, 3, 1, 1).at([2, 9, 7])],
  [5, conv2d(3, 4, 3, 2, 0).at([3, 11, 12])],
  [4, conv1d(3, 6, 5, 1, 2).at([3, 20])],
  [3, conv1dPeriodic(8, 2, 3, 3)],
  [2, conv2dPeriodic(5, 6, 2, 3, 3)],
];
const ACTS = ['relu', 'sigmoid', 'tanh', 'exp'] as const;

describe('the fusion rewrite: layer >> activation as one lens', () => {
  it.each([
    ['js', jsBackend],
    ['wasm', wasm],
  ] as [string, Backend][])('equals the composite bit for bit on %s (every fusable layer × relu, sigmoid, tanh, exp; float32 and float64)', (_n, be) => {
    setBackend(be);
    try {
      for (const act of ACTS) {
        for (const dtype of ['float32', 'float64'] as const) {
          for (const [B, f] of LAYERS) {
            const rng = new Rng(B * 100 + f.params[0]!.shape[0]!);
            const composite = seq(f, elementwise(act));
            const fused = fuseActivations(composite);
            expect(fused).toBeInstanceOf(Fused);
            const theta = f.init(rng, dtype);
            const x = randn([B, ...f.dom!], rng, dtype),
              dy = randn([B, ...f.cod!], rng, dtype);
            const a = lensBits(fused, theta, x, dy),
              b = lensBits(composite, theta, x, dy);
            expect(a.forwardAllocs, 'the pair runs fused').toBeLessThan(b.forwardAllocs);
            expect({ ...a, forwardAllocs: 0 }).toEqual({ ...b, forwardAllocs: 0 });
            // dθ alone (dx not needed), as a training step asks
            expect({ ...lensBits(fused, theta, x, dy, false), forwardAllocs: 0 }).toEqual({ ...lensBits(composite, theta, x, dy, false), forwardAllocs: 0 });
          }
        }
      }
    } finally {
      setBackend(jsBackend);
    }
  });

  it.each(LAYERS.flatMap(([, f]) => ACTS.map((act) => [String(f), act, f] as const)))('%s >> %s fused passes a float64 gradient check', (_s, act, f) => {
    const fused = fuseActivations(seq(f, elementwise(act)));
    expect(fused).toBeInstanceOf(Fused);
    for (const seed of [1, 2]) expect(gradcheck(fused, { seed, batch: 2 }).ok).toBe(true);
  });

  it('is the composite in every other respect: factors, parameters, shapes, and a spec that parses back to it', () => {
    const f = parseSpec('dense(2,4) >> relu >> dense(4,3) >> tanh >> dense(3,1) >> sigmoid');
    const g = fuseActivations(f);
    expect(String(g)).toBe('(dense(2,4) >> relu) >> (dense(4,3) >> tanh) >> (dense(3,1) >> sigmoid)');
    expect(structure(parseSpec(String(g)))).toEqual(structure(f));
    expect(g.params.map((p) => p.shape)).toEqual(f.params.map((p) => p.shape));
    expect([g.dom, g.cod]).toEqual([f.dom, f.cod]);
    // a model with nothing to fuse is returned as it is
    const h = parseSpec('dense(2,4) >> gelu >> dense(4,1)');
    expect(fuseActivations(h)).toBe(h);
  });

  /** Random models [a] → [b] of dense layers and activations, with residual blocks, products and maps inside. */
  const model = (a: number, b: number, depth: number): fc.Arbitrary<Para> => {
    const act = fc.constantFrom('relu', 'sigmoid', 'tanh', 'exp', 'gelu', 'softplus');
    const layer = fc.tuple(act, fc.boolean()).map(([op, withAct]) => (withAct ? seq(dense(a, b), elementwise(op as 'relu')) : dense(a, b)));
    if (depth === 0) return layer;
    const sub = (x: number, y: number): fc.Arbitrary<Para> => model(x, y, depth - 1);
    return fc.oneof(
      layer,
      fc.integer({ min: 1, max: 5 }).chain((m) => fc.tuple(sub(a, m), sub(m, b)).map(([f, g]) => seq(f, g))),
      ...(a === b ? [sub(a, a).map((f) => residual(f))] : []),
      ...(a >= 2 && b >= 2 ? [fc.tuple(sub(1, 1), sub(a - 1, b - 1)).map(([f, g]) => par(f, g))] : []),
    );
  };

  it('on random models (fast-check): the rewritten model has the same lens, bit for bit, and the same parameters', () => {
    const sized = fc
      .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 }))
      .chain(([a, b]) => fc.tuple(fc.constant(a), fc.constant(b), model(a, b, 2)));
    fc.assert(
      fc.property(sized, fc.integer({ min: 1, max: 1000 }), ([a, b, f], seed) => {
        const g = fuseActivations(f);
        expect(g.params.map((p) => p.shape)).toEqual(f.params.map((p) => p.shape));
        expect([g.dom, g.cod]).toEqual([f.dom, f.cod]);
        const rng = new Rng(seed);
        const theta = f.init(rng);
        const x = randn([3, a], rng, 'float32'),
          dy = randn([3, b], rng, 'float32');
        expect({ ...lensBits(g, theta, x, dy), forwardAllocs: 0 }).toEqual({ ...lensBits(f, theta, x, dy), forwardAllocs: 0 });
      }),
      { numRuns: 60 },
    );
  });

  it('reaches into residual blocks, products and maps', () => {
    const inner = seq(dense(3, 3), elementwise('relu'));
    expect(String(fuseActivations(residual(inner)))).toBe('residual(dense(3,3) >> relu)');
    expect(fuseActivations(residual(inner)).children[0]).toBeInstanceOf(Fused);
    expect(fuseActivations(par(inner, dense(2, 2))).children[0]).toBeInstanceOf(Fused);
    expect(fuseActivations(mapSet(inner, 4)).children[0]).toBeInstanceOf(Fused);
  });

  it('fuses only the built-in activations of the built-in layers: a primitive that merely calls itself relu or dense, and gelu or softplus, are run as they are', () => {
    const fakeRelu = primitive({ kind: 'relu', dom: [3], cod: [3], forward: (_t, x) => ({ y: x, pullback: (d) => d }) });
    const f = seq(dense(2, 3), fakeRelu);
    expect(fuseActivations(f)).toBe(f);
    const theta = dense(2, 3).init(1);
    const x = Tensor.of([-1, 2, 3, -4], [2, 2]);
    expect(Array.from(fuseActivations(f).run(theta, x).data)).toEqual(Array.from(dense(2, 3).run(theta, x).data));
    for (const op of ['gelu', 'softplus'] as const) {
      const g = seq(dense(3, 4), elementwise(op));
      expect(fuseActivations(g)).toBe(g);
    }
    // K-FAC instruments each dense layer (a primitive that calls itself dense): fusing it would skip the recording
    const instrumented = kfacModel(seq(dense(2, 3), elementwise('relu'), dense(3, 1)), { fisher: 'empirical' }).model;
    expect(fuseActivations(instrumented)).toBe(instrumented);
  });

  it('the Trainer runs the rewritten model, and trains exactly as the composite would', () => {
    for (const be of [jsBackend, wasm]) {
      setBackend(be);
      try {
        const data = moons(64, 0.1, 2);
        const spec = 'dense(2,16) >> tanh >> dense(16,8) >> relu >> dense(8,1) >> sigmoid';
        const run = (rewrite: boolean): number[][] => {
          const t = new Trainer(parseSpec(spec), data, { loss: mse, lr: 0.1, batch: 24, seed: 3 });
          expect(String(t.model)).toBe(spec);
          expect(String(t.fused)).toBe('(dense(2,16) >> tanh) >> (dense(16,8) >> relu) >> (dense(8,1) >> sigmoid)');
          // without the rewrite: every step runs the composite factor by factor
          if (!rewrite) Object.assign(t, { fused: t.model });
          for (let e = 0; e < 3; e++) t.runEpoch();
          return t.theta.map((p) => Array.from(p.data));
        };
        expect(run(true)).toEqual(run(false));
      } finally {
        setBackend(jsBackend);
      }
    }
  });
});
