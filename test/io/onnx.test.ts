import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { onnxSchema } from '../../src/io/onnx/schema.js';
import { parseSpec, Rng, Tensor, tie, dense, seq, sigmoid, ParalensError } from '../../src/index.js';
import { exportOnnx, ExportError } from '../../src/io/index.js';
import type { Para } from '../../src/index.js';
import { describeWith, onnxRuntime } from '../peer/available.js';

const { peer: runtime, value: ort } = await onnxRuntime();

/** θ from the layers' initialisers, plus N(0, 0.3²) noise so that no bias is zero. */
function randomTheta(m: Para, seed: number): Tensor[] {
  const rng = new Rng(seed);
  return m.init(seed).map((t) => {
    for (let i = 0; i < t.size; i++) t.data[i]! += rng.normal() * 0.3;
    return t;
  });
}

async function maxDiff(spec: string, inputShape: number[] | undefined, seed: number): Promise<number> {
  let m = parseSpec(spec);
  if (!m.dom) m = m.at(inputShape!);
  const theta = randomTheta(m, seed);
  const B = 7;
  const rng = new Rng(seed + 1);
  const x = Tensor.zeros([B, ...m.dom!]);
  for (let i = 0; i < x.size; i++) x.data[i] = rng.normal();
  const ours = m.run(theta, x);
  const bytes = exportOnnx(m, theta);
  const session = await ort!.InferenceSession.create(bytes);
  const out = await session.run({ input: new ort!.Tensor('float32', x.data as Float32Array, [...x.shape]) });
  const theirs = out.output!;
  expect([...theirs.dims]).toEqual([...ours.shape]);
  let d = 0;
  const data = theirs.data as Float32Array;
  for (let i = 0; i < ours.size; i++) d = Math.max(d, Math.abs(data[i]! - ours.data[i]!));
  expect(Number.isFinite(d)).toBe(true);
  return d;
}

const architectures: [string, string, number[]?][] = [
  ['dense + activations + softmax', 'dense(3,5) >> tanh >> dense(5,4) >> sigmoid >> dense(4,3) >> softmax'],
  ['parallel (Split + Concat)', 'dense(4,6) >> relu >> (dense(3,2) >> sigmoid) @ (dense(3,4) >> gelu) >> dense(6,2)'],
  ['residual (Add)', 'dense(4,8) >> residual(dense(8,8) >> leaky_relu(0.1)) >> softplus >> dense(8,3)'],
  ['copy, id, add, dropout', 'copy(4) >> (dense(4,4) >> tanh) @ id(4) >> add(4) >> dropout(0.5) >> dense(4,2)'],
  ['discard in a product', 'dense(2,3) @ discard(2) >> relu'],
  ['conv2d, pooling, flatten', 'conv2d(1,3,3,1,1) >> relu >> maxpool2d(2) >> conv2d(3,4,3) >> avgpool2d(2,1) >> flatten >> dense(16,5)', [1, 10, 10]],
  ['conv1d, global average pooling', 'conv1d(2,4,3,2,1) >> tanh >> globalavgpool >> dense(4,2)', [2, 9]],
];

describeWith(runtime, 'ONNX export, run in ONNX Runtime', () => {
  for (const [name, spec, shape] of architectures) {
    it(`${name}: ${spec}`, async () => {
      for (const seed of [1, 2]) expect(await maxDiff(spec, shape, seed)).toBeLessThanOrEqual(1e-5);
    });
  }

  it('a wrong weight layout would be caught (the comparison is not vacuous)', async () => {
    const m = parseSpec('dense(3,3) >> tanh');
    const theta = randomTheta(m, 5);
    const x = Tensor.from([[1, -2, 0.5]]);
    const ours = m.run(theta, x);
    const wT = Tensor.zeros([3, 3]);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) wT.data[i * 3 + j] = theta[0]!.data[j * 3 + i]!;
    const s = await ort!.InferenceSession.create(exportOnnx(m, [wT, theta[1]!]));
    const out = (await s.run({ input: new ort!.Tensor('float32', x.data as Float32Array, [1, 3]) })).output!.data as Float32Array;
    const d = Math.max(...[0, 1, 2].map((i) => Math.abs(out[i]! - ours.data[i]!)));
    expect(d).toBeGreaterThan(1e-3);
  });
});

describe('ONNX export: the model proto', () => {
  it('decodes with the schema: opset, initializer names and shapes, graph input/output', () => {
    const m = parseSpec('dense(2,4) >> sigmoid >> dense(4,1)');
    const theta = m.init(0);
    const bytes = exportOnnx(m, theta);
    const ModelProto = onnxSchema().lookupType('onnx.ModelProto');
    const dec = ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, bytes: Array }) as {
      ir_version: number;
      opset_import: { version: number }[];
      graph: { node: { op_type: string }[]; initializer: { name: string; dims: number[] }[]; input: { name: string }[]; output: { name: string }[] };
    };
    expect(dec.opset_import[0]!.version).toBe(20);
    expect(dec.graph.node.map((n) => n.op_type)).toEqual(['Gemm', 'Sigmoid', 'Gemm']);
    expect(dec.graph.initializer.map((t) => [t.name, t.dims])).toEqual([
      ['0.weight', [4, 2]],
      ['0.bias', [4]],
      ['2.weight', [1, 4]],
      ['2.bias', [1]],
    ]);
    expect(dec.graph.input[0]!.name).toBe('input');
    expect(dec.graph.output[0]!.name).toBe('output');
  });

  it('refuses a layer it cannot express, naming it (the exempt list of docs/onnx.md)', () => {
    const m = parseSpec('dense(2,4) >> equivariant(S(4),V,V)');
    expect(() => exportOnnx(m, m.init(0))).toThrow(ExportError);
    expect(() => exportOnnx(m, m.init(0))).toThrow(/equivariant\(S\(4\),V,V\)/);
    // a reparametrisation is written with the parameters it computes: tied weights as one initializer read twice
    const tied = tie(seq(dense(2, 2), sigmoid(), dense(2, 2)), [[0, 2]]);
    const bytes = exportOnnx(tied, tied.init(0));
    const dec = onnxSchema().lookupType('onnx.ModelProto').decode(bytes) as unknown as { graph: { initializer: { name: string }[] } };
    expect(dec.graph.initializer).toHaveLength(tied.params.length);
    try {
      exportOnnx(m, m.init(0));
    } catch (e) {
      expect(e instanceof ParalensError && e.usage).toBe(true);
    }
  });

  it('needs an input shape for a morphism that takes any shape', () => {
    const m = parseSpec('conv2d(1,2,3) >> flatten');
    expect(() => exportOnnx(m, m.init(0))).toThrow(/input shape/);
    expect(exportOnnx(m, m.init(0), { inputShape: [1, 5, 5] }).length).toBeGreaterThan(0);
  });
});

describeWith(runtime, 'ONNX export of identities', () => {
  it('id(3) alone and a product ending in discard still give an output named output', async () => {
    for (const spec of ['id(3)', 'dense(2,3) @ discard(1)', 'id(3) >> dropout(0.2)']) {
      const m = parseSpec(spec);
      const theta = randomTheta(m, 3);
      const x = Tensor.from([[0.5, -1, 2]]);
      const s = await ort!.InferenceSession.create(exportOnnx(m, theta));
      const out = (await s.run({ input: new ort!.Tensor('float32', x.data as Float32Array, [1, 3]) })).output!.data as Float32Array;
      const ours = m.run(theta, x).data;
      expect(
        Array.from(out)
          .map((v, i) => Math.abs(v - ours[i]!))
          .every((d) => d <= 1e-6),
        spec,
      ).toBe(true);
    }
  });
});

/** A random morphism [n] → [?] built from dense, activations, ⊗ and residual, as a spec string. */
function randomSpec(rng: Rng, n: number, depth: number): { spec: string; out: number } {
  const acts = ['sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'leaky_relu(0.2)', 'softmax', 'dropout(0.3)'];
  const r = depth <= 0 ? rng.int(2) : rng.int(6);
  if (r === 0) {
    const out = 1 + rng.int(5);
    return { spec: `dense(${n},${out})`, out };
  }
  if (r === 1) return { spec: acts[rng.int(acts.length)]!, out: n };
  if (r === 2 || n < 2) {
    const a = randomSpec(rng, n, depth - 1);
    const b = randomSpec(rng, a.out, depth - 1);
    return { spec: `(${a.spec} >> ${b.spec})`, out: b.out };
  }
  if (r === 3) {
    const k = 1 + rng.int(n - 1);
    const a = randomSpec(rng, k, depth - 1);
    const b = randomSpec(rng, n - k, depth - 1);
    return { spec: `(id(${k}) >> ${a.spec}) @ (id(${n - k}) >> ${b.spec})`, out: a.out + b.out };
  }
  if (r === 4) {
    const h = randomSpec(rng, n, depth - 1);
    return { spec: `residual(${h.spec} >> dense(${h.out},${n}))`, out: n };
  }
  const h = randomSpec(rng, n, depth - 1);
  return { spec: `copy(${n}) >> (${h.spec} >> dense(${h.out},${n})) @ id(${n}) >> add(${n})`, out: n };
}

describeWith(runtime, 'ONNX export commutes with evaluation (property, random composites)', () => {
  it('ONNX Runtime on the export = paralens on the morphism, for random seq/par/residual/copy-add composites', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 2 ** 31 - 1 }), async (seed) => {
        const rng = new Rng(seed);
        const n = 1 + rng.int(5);
        const { spec } = randomSpec(rng, n, 3);
        const m = parseSpec(`id(${n}) >> ${spec}`);
        expect(String(parseSpec(String(m))), spec).toBe(String(m));
        expect(await maxDiff(String(m), undefined, seed)).toBeLessThanOrEqual(1e-5);
      }),
      { numRuns: 40 },
    );
  });
});
