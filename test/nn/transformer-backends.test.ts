import { describe, expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../src/index.js';
import { setBackend } from '../../src/tensor/index.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';

describe('a transformer language model on the wasm backend', () => {
  it.each(['rope', 'relative', 'absolute(16)', 'none'])('matches js (%s): logits, and every parameter gradient, within float32 tolerance', async (pos) => {
    const wasm = await createWasmBackend({ threads: 2, minGemmVolume: 0, minElements: 0, minParallelVolume: 0 });
    const f = parseSpec(`embedding(13,16) >> transformer(16,4,32,${pos}) >> transformer(16,2,32,${pos}) >> layernorm(16) >> dense(16,13)`).at([12]);
    const rng = new Rng(3);
    const theta = f.params.map((p) =>
      Tensor.of(
        Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal() * 0.5),
        p.shape,
      ),
    );
    const x = Tensor.of(
      Array.from({ length: 5 * 12 }, () => rng.int(13)),
      [5, 12],
    );
    const dy = Tensor.of(
      Array.from({ length: 5 * 12 * 13 }, () => rng.normal()),
      [5, 12, 13],
    );
    const run = () => {
      const lens = f.forward(theta, x, makeCtx());
      const g = theta.map((t) => Tensor.zeros(t.shape));
      lens.pullback(dy, g);
      return { y: lens.y, g };
    };
    try {
      setBackend('js');
      const ref = run();
      setBackend(wasm);
      const got = run();
      const rel = (a: Tensor, b: Tensor): number => {
        let num = 0,
          den = 0;
        for (let i = 0; i < a.size; i++) {
          num += (a.data[i]! - b.data[i]!) ** 2;
          den += b.data[i]! ** 2;
        }
        return Math.sqrt(num / Math.max(den, 1e-30));
      };
      expect(rel(got.y, ref.y)).toBeLessThan(1e-5);
      got.g.forEach((g, i) => expect(rel(g, ref.g[i]!), f.params[i]!.name).toBeLessThan(1e-4));
    } finally {
      setBackend('js');
      wasm.dispose();
    }
  });
});

describe('the heads of attention on two threads', () => {
  it('are shared out whole products at a time, and give the same bits as one thread', async () => {
    const two = await createWasmBackend({ threads: 2, minParallelVolume: 0 });
    const one = await createWasmBackend({ threads: 1 });
    try {
      const rng = new Rng(4);
      const B = 16,
        H = 4,
        T = 24,
        dh = 8,
        d = H * dh;
      const q = two.alloc!(B * T * d)!,
        k = two.alloc!(B * T * d)!;
      for (let i = 0; i < q.length; i++) {
        q[i] = rng.normal();
        k[i] = rng.normal();
      }
      const heads = (data: Float32Array) => ({ data, ld: d, outer: T * d, inner: dh });
      const run = (be: typeof two, out: Float32Array): void =>
        be.gemmBatched(false, true, T, T, dh, heads(q), heads(k), { data: out, ld: T, outer: H * T * T, inner: T * T }, [B, H], false);
      const before = two.threadStats().sharedProducts;
      const s2 = two.alloc!(B * H * T * T)!,
        s1 = new Float32Array(B * H * T * T);
      run(two, s2);
      run(one, s1);
      expect(two.threadStats().sharedProducts).toBe(before + 1);
      expect(Array.from(s2)).toEqual(Array.from(s1));
    } finally {
      two.dispose();
      one.dispose();
    }
  });
});
