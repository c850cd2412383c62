import { expect, it } from 'vitest';
import { parseSpec, Rng, Tensor } from '../../src/index.js';
import { exportOnnx } from '../../src/io/index.js';
import { describeWith, onnxRuntime } from '../peer/available.js';

const { peer: runtime, value: ort } = await onnxRuntime();

/** ONNX Runtime's output and paralens's on the same token ids and random weights. */
async function compare(spec: string, T: number, V: number, seed: number): Promise<number> {
  const m = parseSpec(spec).at([T]);
  const rng = new Rng(seed);
  const theta = m.params.map((p) =>
    Tensor.of(
      Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal() * 0.5),
      p.shape,
    ),
  );
  const x = Tensor.of(
    Array.from({ length: 3 * T }, () => rng.int(V)),
    [3, T],
  );
  const ours = m.run(theta, x);
  const session = await ort!.InferenceSession.create(exportOnnx(m, theta));
  const out = (await session.run({ input: new ort!.Tensor('float32', x.data as Float32Array, [3, T]) })).output!;
  expect([...out.dims]).toEqual([...ours.shape]);
  const data = out.data as Float32Array;
  let d = 0;
  for (let i = 0; i < ours.size; i++) d = Math.max(d, Math.abs(data[i]! - ours.data[i]!) / (1 + Math.abs(ours.data[i]!)));
  return d;
}

describeWith(runtime, 'ONNX export of text models, run in ONNX Runtime', () => {
  const lm = (pos: string, norm = 'layernorm'): string =>
    `embedding(11,8) >> transformer(8,2,16,${pos}) >> transformer(8,4,16,${pos}) >> ${norm}(8) >> dense(8,11)`;
  it.each(['rope', 'relative', 'relative(3)', 'absolute(12)', 'none', 'seq(9,causal)', 'seq(12,causal,rotary)'])(
    "a two-block %s language model gives paralens's logits",
    async (pos) => {
      for (const seed of [1, 2]) expect(await compare(lm(pos), 9, 11, seed)).toBeLessThan(1e-5);
    },
  );

  it('rmsnorm, an attention without the mask, and a tied head (one initializer for the shared table)', async () => {
    expect(await compare(lm('rope', 'rmsnorm'), 7, 11, 3)).toBeLessThan(1e-5);
    expect(await compare('embedding(6,8) >> attention(8,2,relative,none) >> dense(8,6)', 5, 6, 4)).toBeLessThan(1e-5);
    expect(await compare(`tied(${lm('none')})`, 6, 11, 5)).toBeLessThan(1e-5);
    for (const geo of ['seq(5)', 'cyclic(5)', 'set(5)', 'grid(1,5)'])
      expect(await compare(`embedding(6,8) >> attention(8,2,${geo}) >> dense(8,6)`, 5, 6, 4)).toBeLessThan(1e-5);
  });

  it('the comparison is not vacuous: a wrong rotation direction would be caught', async () => {
    const spec = 'embedding(11,8) >> attention(8,2,rope) >> dense(8,11)';
    const m = parseSpec(spec).at([6]);
    const rng = new Rng(6);
    const theta = m.params.map((p) =>
      Tensor.of(
        Array.from({ length: p.shape.reduce((a, b) => a * b, 1) }, () => rng.normal()),
        p.shape,
      ),
    );
    const x = Tensor.of(
      Array.from({ length: 6 }, () => rng.int(11)),
      [1, 6],
    );
    // the same weights under none: outputs differ from rope's wherever position matters
    const none = parseSpec('embedding(11,8) >> attention(8,2,none) >> dense(8,11)').at([6]);
    const s = await ort!.InferenceSession.create(exportOnnx(m, theta));
    const out = (await s.run({ input: new ort!.Tensor('float32', x.data as Float32Array, [1, 6]) })).output!.data as Float32Array;
    const other = none.run(theta, x);
    let d = 0;
    for (let i = 0; i < other.size; i++) d = Math.max(d, Math.abs(out[i]! - other.data[i]!));
    expect(d).toBeGreaterThan(1e-3);
  });
});
