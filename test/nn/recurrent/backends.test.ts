import { describe, expect, it } from 'vitest';
import { makeCtx, parseSpec, Rng, Tensor } from '../../../src/index.js';
import { setBackend } from '../../../src/tensor/index.js';
import { createWasmBackend } from '../../../src/tensor/wasm-backend.js';

/** A recurrent language model on the wasm backend (fused gate kernels, products in wasm) against the reference backend, float32. */
describe('recurrent language models on the wasm backend', () => {
  it.each(['lstm', 'gru', 'rnn', 'mgu'])('match js (%s): logits and every parameter gradient within float32 tolerance', async (kind) => {
    const wasm = await createWasmBackend({ threads: 2, minGemmVolume: 0, minElements: 0, minParallelVolume: 0 });
    const f = parseSpec(`embedding(13,8) >> ${kind}(8,10) >> ${kind}(10,6) >> dense(6,13)`).at([9]);
    const rng = new Rng(3);
    const theta = f.params.map((p) =>
      Tensor.of(
        Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal() * 0.5),
        p.shape,
      ),
    );
    const x = Tensor.of(
      Array.from({ length: 5 * 9 }, () => rng.int(13)),
      [5, 9],
    );
    const dy = Tensor.of(
      Array.from({ length: 5 * 9 * 13 }, () => rng.normal()),
      [5, 9, 13],
    );
    const run = () => {
      const lens = f.forward(theta, x, makeCtx());
      const g = theta.map((t) => Tensor.zeros(t.shape));
      lens.pullback(dy, g);
      return { y: lens.y, g };
    };
    const rel = (a: Tensor, b: Tensor): number => {
      let num = 0,
        den = 0;
      for (let i = 0; i < a.size; i++) {
        num += (a.data[i]! - b.data[i]!) ** 2;
        den += b.data[i]! ** 2;
      }
      return Math.sqrt(num / Math.max(den, 1e-30));
    };
    try {
      setBackend('js');
      const ref = run();
      setBackend(wasm);
      const got = run();
      expect(rel(got.y, ref.y)).toBeLessThan(1e-5);
      got.g.forEach((g, i) => expect(rel(g, ref.g[i]!), f.params[i]!.name).toBeLessThan(1e-4));
    } finally {
      setBackend('js');
      wasm.dispose();
    }
  });
});
