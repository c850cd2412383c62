import fc from 'fast-check';
import { expect, it } from 'vitest';
import { makeCtx, OPERATORS, Tensor, VERSION } from '../../src/index.js';
import { emitOp } from '../../src/io/onnx/export-ops.js';
import { OnnxGraph } from '../../src/io/onnx/graph-proto.js';
import { ONNX_FLOAT, onnxSchema } from '../../src/io/onnx/schema.js';
import { describeWith, onnxRuntime } from '../peer/available.js';
import { OP_CASES } from './cases.js';

/**
 * ONNX semantics, checked against the reference runtime: every operator of the vocabulary on
 * random shapes and attributes (the cases of the gradient check) runs in onnxruntime-node as a
 * one-node model written by paralens's exporter (opset 20), and the outputs agree with the
 * operator lens's forward in float32. This checks the lens and its ONNX form at once: an
 * operator that reads an attribute, an axis or a broadcast otherwise than ONNX fails here.
 */
const { peer: runtime, value: ort } = await onnxRuntime();

/** Operators where a random case may lie outside what ONNX allows (onnxruntime refuses it): PRelu's slope broadcasts one way only. */
const MAY_BE_REFUSED = new Set(['PRelu']);

function oneNodeModel(name: string, attrs: Record<string, unknown>, inputs: readonly Tensor[]): Uint8Array {
  const g = new OnnxGraph(20, 'x0');
  const op = OPERATORS.find((d) => d.name === name)!.make(attrs as never);
  const outs = emitOp(
    g,
    op,
    inputs.map((_, i) => `x${i}`),
  );
  const info = (n: string): object => ({ name: n, type: { tensor_type: { elem_type: ONNX_FLOAT } } });
  const ModelProto = onnxSchema().lookupType('onnx.ModelProto');
  return ModelProto.encode(
    ModelProto.fromObject({
      ir_version: 9,
      opset_import: [{ domain: '', version: 20 }],
      producer_name: 'paralens',
      producer_version: VERSION,
      graph: {
        name: name,
        node: g.nodes,
        initializer: g.initializers,
        input: inputs.map((_, i) => info(`x${i}`)),
        output: outs.map(info),
      },
    }),
  ).finish();
}

describeWith(runtime, 'operator lenses agree with onnxruntime', () => {
  it('every operator, three random cases each (float32)', async () => {
    let checked = 0;
    const failures: string[] = [];
    for (const def of OPERATORS) {
      for (const c of fc.sample(OP_CASES[def.name]!, { numRuns: 3, seed: 17 })) {
        const inputs = c.inputs.map((x) => x.to('float32'));
        const op = def.make(c.attrs);
        const ours = op.forward(inputs, { ...makeCtx(), batch: inputs[0]?.shape[0] ?? 1 }).ys;
        let theirs: Record<string, { data: unknown; dims: readonly number[] }>;
        try {
          const session = await ort!.InferenceSession.create(oneNodeModel(def.name, c.attrs as Record<string, unknown>, inputs));
          theirs = await session.run(Object.fromEntries(inputs.map((x, i) => [`x${i}`, new ort!.Tensor('float32', x.data as Float32Array, [...x.shape])])));
        } catch (e) {
          if (MAY_BE_REFUSED.has(def.name)) continue;
          failures.push(`${op} on ${inputs.map((x) => `[${x.shape}]`).join(', ')}: onnxruntime: ${(e as Error).message.split('\n')[0]}`);
          continue;
        }
        const outs = Object.values(theirs);
        const where = `${op} on ${inputs.map((x) => `[${x.shape}]`).join(', ')}`;
        if (outs.length !== ours.length) failures.push(`${where}: ${outs.length} outputs, paralens ${ours.length}`);
        ours.forEach((y, k) => {
          const t = outs[k];
          if (!t) return;
          if ([...t.dims].join() !== [...y.shape].join()) return void failures.push(`${where}: output ${k} is [${t.dims}] in onnxruntime, [${y.shape}] here`);
          const data = t.data as Float32Array;
          const scale = Math.max(1, ...Array.from(y.data, Math.abs));
          const i = Array.from(y.data).findIndex((a, j) => !(Number.isNaN(a) && Number.isNaN(data[j]!)) && !(Math.abs(a - data[j]!) <= 2e-5 * scale));
          if (i >= 0) failures.push(`${where}: output ${k}[${i}] ${y.data[i]} here, ${data[i]} in onnxruntime`);
        });
        checked++;
      }
    }
    expect(failures).toEqual([]);
    expect(checked).toBeGreaterThan(3 * OPERATORS.length - 6);
  }, 300_000);
});
