import { afterAll, describe, expect, it } from 'vitest';
import { conv1d, conv2d, dense, elementwise, makeCtx, moons, mse, primitive, Rng, Seq, seq, Tensor, Trainer } from '../../src/index.js';
import type { Ctx, Para } from '../../src/index.js';
import { setBackend } from '../../src/tensor/registry.js';
import type { Backend } from '../../src/tensor/backend.js';
import { jsBackend } from '../../src/tensor/js-backend.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';

// seq runs `dense >> act` (and conv1d, conv2d) as one fused lens (PrimitiveDef.forwardThen). The fused lens must be
// the composite's lens exactly: the same bits of y, dx and dθ as running the two factors one
// after the other, on every backend, in float32 and float64.
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

function run(f: Para, g: Para, theta: Tensor[], x: Tensor, dy: Tensor, fused: boolean) {
  const ctx = countingCtx();
  let y: Tensor, back: (d: Tensor, dTheta: Tensor[]) => Tensor;
  if (fused) {
    const lens = seq(f, g).forward(theta, x, ctx);
    y = lens.y;
    back = (d, dTheta) => lens.pullback(d, dTheta);
  } else {
    const l1 = f.forward(theta, x, ctx),
      l2 = g.forward([], l1.y, ctx);
    y = l2.y;
    back = (d, dTheta) => l1.pullback(l2.pullback(d, []), dTheta);
  }
  const forwardAllocs = ctx.count;
  const dTheta = theta.map((t) => Tensor.zeros(t.shape, t.dtype));
  const dx = back(dy, dTheta);
  const bits = (t: Tensor) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength).toString('hex');
  return { y: bits(y), dx: bits(dx), dTheta: dTheta.map(bits), forwardAllocs };
}

describe('fused dense / conv >> activation', () => {
  it.each([
    ['js', jsBackend],
    ['wasm', wasm],
  ] as [string, Backend][])('equals the composite bit for bit on %s (relu, sigmoid, tanh, exp; float32 and float64)', (_n, be) => {
    setBackend(be);
    try {
      for (const act of ['relu', 'sigmoid', 'tanh', 'exp'] as const) {
        for (const dtype of ['float32', 'float64'] as const) {
          const layers: [number, Para][] = [
            [1, dense(3, 5)],
            [7, dense(33, 17)],
            [64, dense(100, 40)],
            [3, conv2d(2, 5, 3, 1, 1).at([2, 9, 7])],
            [5, conv2d(3, 4, 3, 2, 0).at([3, 11, 12])],
            [4, conv1d(3, 6, 5, 1, 2).at([3, 20])],
          ];
          for (const [B, f] of layers) {
            const rng = new Rng(B * 100 + f.params[0]!.shape[0]!);
            const g = elementwise(act).at(f.cod!);
            const theta = f.init(rng, dtype);
            const x = Tensor.zeros([B, ...f.dom!], dtype),
              dy = Tensor.zeros([B, ...f.cod!], dtype);
            x.data.forEach((_, k) => (x.data[k] = rng.normal()));
            dy.data.forEach((_, k) => (dy.data[k] = rng.normal()));
            const a = run(f, g, theta, x, dy, true),
              b = run(f, g, theta, x, dy, false);
            expect(a.forwardAllocs, 'the pair runs fused').toBeLessThan(b.forwardAllocs);
            expect({ ...a, forwardAllocs: 0 }).toEqual({ ...b, forwardAllocs: 0 });
          }
        }
      }
    } finally {
      setBackend(jsBackend);
    }
  });

  it('with dθ not wanted and dx not needed, and trained by the Trainer on its arena: the same bits as the unfused composite', () => {
    for (const be of [jsBackend, wasm]) {
      setBackend(be);
      try {
        const rng = new Rng(9);
        const f = dense(6, 5),
          g = elementwise('tanh').at([5]);
        const theta = f.init(rng);
        const x = Tensor.of(
            Array.from({ length: 24 }, () => rng.normal()),
            [4, 6],
          ),
          dy = Tensor.of(
            Array.from({ length: 20 }, () => rng.normal()),
            [4, 5],
          );
        const fusedDx = seq(f, g).forward(theta, x, makeCtx()).pullback(dy, null, true);
        const l1 = f.forward(theta, x, makeCtx()),
          l2 = g.forward([], l1.y, makeCtx());
        expect(Array.from(fusedDx.data)).toEqual(Array.from(l1.pullback(l2.pullback(dy, null), null, true).data));
        const noDx = seq(f, g).forward(theta, x, makeCtx()).pullback(dy, null, false);
        expect(noDx.shape).toEqual([4, 6]);
        // training: seq(...) fuses; the same factors nested as dense >> (tanh >> id) do not
        const data = moons(64, 0.1, 2);
        const spec = (nested: boolean): Para => {
          const [a, b, c] = [dense(2, 16), elementwise('tanh').at([16]), dense(16, 1)];
          return nested ? new Seq([a, new Seq([b, c])]) : seq(a, b, c);
        };
        const run = (nested: boolean) => {
          const t = new Trainer(spec(nested), data, { loss: mse, lr: 0.1, batch: 24, seed: 3 });
          for (let e = 0; e < 3; e++) t.runEpoch();
          return t.theta.map((p) => Array.from(p.data));
        };
        expect(run(false)).toEqual(run(true));
      } finally {
        setBackend(jsBackend);
      }
    }
  });

  it('applies only to the built-in activations: a primitive that merely calls itself relu is run as it is', () => {
    const f = dense(2, 3),
      fake = primitive({ kind: 'relu', dom: [3], cod: [3], forward: (_t, x) => ({ y: x, pullback: (d) => d }) });
    const theta = f.init(1);
    const x = Tensor.of([-1, 2, 3, -4], [2, 2]);
    expect(Array.from(seq(f, fake).run(theta, x).data)).toEqual(Array.from(f.run(theta, x).data));
  });

  it('is not used for activations whose derivative needs the pre-activation (gelu, softplus)', () => {
    const rng = new Rng(5);
    for (const g of [elementwise('gelu').at([4]), elementwise('softplus').at([4])]) {
      const f = dense(3, 4),
        theta = f.init(rng);
      const ctx = countingCtx();
      seq(f, g).forward(theta, Tensor.zeros([2, 3]), ctx);
      expect(ctx.count).toBe(2);
    }
  });
});
