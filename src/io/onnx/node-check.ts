import { DataError } from '../../errors.js';
import { Rng } from '../../random/rng.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';

/**
 * Runs an exported ONNX model in ONNX Runtime (Node, CPU) on `rows` random N(0,1) inputs
 * (random token ids when the model starts with an embedding) and returns the largest absolute difference from the paralens forward pass. Node only;
 * onnxruntime-node is loaded on demand and its absence is reported, never faked.
 */
export async function checkWithOnnxRuntime(
  bytes: Uint8Array,
  model: Para,
  theta: readonly Tensor[],
  rows = 64,
  seed = 0,
): Promise<{ maxAbsDiff: number; rows: number; runtime: string }> {
  let ort: typeof import('onnxruntime-node');
  try {
    ort = await import('onnxruntime-node');
  } catch (e) {
    // an optional peer dependency (package.json): a consumer who never checks exports need not install it
    if ((e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND') {
      throw new DataError('cannot check the export: onnxruntime-node is not installed (an optional peer dependency of paralens: npm install onnxruntime-node)');
    }
    throw new DataError(`cannot check the export: onnxruntime-node does not load (${(e as Error).message})`);
  }
  const rng = new Rng(seed);
  const x = Tensor.zeros([rows, ...model.dom!]);
  let first = model;
  while (first.children.length) first = first.children[0]!;
  const V = first.kind === 'embedding' ? (first.args[0] as number) : 0;
  for (let i = 0; i < x.size; i++) x.data[i] = V ? rng.int(V) : rng.normal();
  const ours = model.run(theta, x);
  const session = await ort.InferenceSession.create(bytes);
  const out = await session.run({ input: new ort.Tensor('float32', x.data as Float32Array, [...x.shape]) });
  const theirs = out.output!.data as Float32Array;
  let d = 0;
  for (let i = 0; i < ours.size; i++) d = Math.max(d, Math.abs(theirs[i]! - ours.data[i]!));
  if (theirs.length !== ours.size) d = Infinity;
  return { maxAbsDiff: d, rows, runtime: `onnxruntime-node ${ort.env.versions?.common ?? ''}`.trim() };
}
