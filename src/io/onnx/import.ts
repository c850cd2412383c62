import { ParalensError } from '../../errors.js';
import { parseSpec } from '../../catalogue/index.js';
import type { Para } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import { Rng } from '../../random/rng.js';
import { ImportError } from '../errors.js';
import { decodeOnnx } from './decode.js';
import { evaluate } from './evaluate.js';
import type { Evaluated } from './evaluate.js';
import type { OnnxModel } from './decode.js';
import { rewrite } from './rewrite.js';
import { isFloatType } from './schema.js';
import type { ElemType } from './schema.js';
import { graphOf, toPara } from './structure.js';
import type { Ir } from './ir.js';

/**
 * ONNX → Para, by operators: the graph is read into operator lenses on wires (every shape-only
 * subgraph evaluated, the batch kept symbolic), rewritten where sub-diagrams are named layers
 * (dense, conv2d, layernorm, embedding, attention …), and read as a composite — seq where one
 * wire carries everything on, residual(f) for skip connections, graph(…) for the rest. The
 * result is an ordinary morphism: printed as its spec, drawn, trained, gradchecked.
 */
export interface OnnxImport {
  readonly model: Para;
  readonly theta: Tensor[];
  /** The op types of the file's nodes, in file order. */
  readonly ops: readonly string[];
  readonly opset: number;
  readonly producer: string;
  /** What fine-tuning needs to know about the input: token ids (an integer input) or numbers. */
  readonly input: { readonly name: string; readonly kind: 'ids' | 'numbers'; readonly type: ElemType; readonly vocabulary?: number };
  /** The graph ends in a softmax (probabilities) or log-softmax (log-probabilities) over the last axis: a loss should use it as its link. */
  readonly outputLink: 'softmax' | 'log-softmax' | undefined;
  /** The batch size the file fixes (read as any batch), when it does. */
  readonly fixedBatch: number | undefined;
  /** The rewrites applied and anything import changed, one line each. */
  readonly notes: readonly string[];
}

/** Reads an ONNX model (ModelProto bytes) as a Para morphism with its weights. */
export interface ImportOptions {
  /** Read operator sub-diagrams as the named layers they are (default true); false keeps every operator a box of its own. */
  readonly layers?: boolean;
}

export function importOnnx(bytes: Uint8Array, opts: ImportOptions = {}): OnnxImport {
  const model = decodeOnnx(bytes);
  let read = readAnyBatch(model, opts.layers ?? true);
  if (read.fixedBatch !== undefined && !('m' in read && samplesIndependent(read.m, read.theta, read.fixedBatch))) {
    // a fixed batch whose shape arithmetic did not read for any batch: the graph as it is, N rows at a time
    read = readFixedBatch(model, read.fixedBatch);
  }
  if ('error' in read) throw read.error;
  const { m, theta: builtTheta, input, fixedBatch, notes, outputLink } = read;
  const built = { m, theta: builtTheta };
  const dom = input.dims.slice(1) as number[];
  try {
    // the spec must rebuild the morphism, as a model file needs
    const again = parseSpec(String(m)).at(dom);
    if (String(again) !== String(m) || again.params.length !== built.theta.length) throw new ImportError(`its spec reads back as ${again}`);
  } catch (e) {
    if (!(e instanceof ParalensError)) throw e;
    throw new ImportError(`cannot import: the graph reads as ${built.m}, which does not rebuild at input [*,${dom.join(',')}]: ${e.message}`);
  }
  const ids = !isFloatType(input.type);
  let first: Para = m;
  while (first.children.length && first.kind !== 'embedding') first = first.children[0]!;
  return {
    model: m,
    theta: built.theta,
    ops: model.graph.nodes.map((n) => n.op),
    opset: model.opset,
    producer: model.producer,
    input: {
      name: input.name,
      kind: ids ? 'ids' : 'numbers',
      type: input.type,
      ...(ids && first.kind === 'embedding' ? { vocabulary: first.args[0] as number } : {}),
    },
    outputLink,
    fixedBatch,
    notes,
  };
}

type Read =
  | { m: Para; theta: Tensor[]; input: Evaluated['input']; fixedBatch: number | undefined; notes: string[]; outputLink: OnnxImport['outputLink'] }
  | { error: ParalensError; fixedBatch: number | undefined };

/** The file read for any batch (the batch a symbol B), or why it does not read so. */
function readAnyBatch(model: OnnxModel, layers: boolean): Read {
  const first = model.graph.inputs[0]?.dims?.[0];
  const fixedBatch = typeof first === 'number' ? first : undefined;
  try {
    const { ir, input, notes } = evaluate(model);
    if (layers) notes.push(...rewrite(ir));
    const built = toPara(ir, ir.live(), ir.input, ir.output);
    return { m: built.m.at(input.dims.slice(1) as number[]), theta: built.theta, input, fixedBatch, notes, outputLink: outputLinkOf(ir) };
  } catch (e) {
    if (!(e instanceof ParalensError) || fixedBatch === undefined) throw e;
    return { error: e, fixedBatch };
  }
}

/** The file read as it is, its batch fixed at N: one graph that runs N rows at a time. */
function readFixedBatch(model: OnnxModel, N: number): Read {
  const { ir, input, notes } = evaluate(model, true);
  const built = graphOf(ir, ir.live(), ir.input, ir.output, N);
  return { m: built.m.at(input.dims.slice(1) as number[]), theta: built.theta, input, fixedBatch: N, notes, outputLink: outputLinkOf(ir) };
}

/**
 * Whether the morphism computes each sample on its own, checked on 2N random samples against
 * two batches of N: a fixed-batch file's sizes read as multiples of B must still keep the
 * samples apart (they would not if a size was taken for the batch that is not).
 */
function samplesIndependent(m: Para, theta: readonly Tensor[], N: number): boolean {
  const rng = new Rng(7);
  const ids = m.kind === 'embedding' || m.children[0]?.kind === 'embedding';
  const per = m.dom!.reduce((a, b) => a * b, 1);
  const x = Tensor.of(
    Array.from({ length: 2 * N * per }, () => (ids ? rng.int(2) : rng.normal())),
    [2 * N, ...m.dom!],
  );
  try {
    const both = m.run(theta, x).data;
    const a = m.run(theta, x.rows(0, N)).data,
      b = m.run(theta, x.rows(N, 2 * N)).data;
    if (both.length !== a.length + b.length) return false;
    let scale = 1e-30;
    for (const v of both) scale = Math.max(scale, Math.abs(v));
    for (let i = 0; i < both.length; i++) if (!(Math.abs(both[i]! - (i < a.length ? a[i]! : b[i - a.length]!)) <= 1e-5 * scale)) return false;
    return true;
  } catch (e) {
    if (e instanceof ParalensError) return false;
    throw e;
  }
}

/** How the output is made: a softmax or log-softmax over the last axis is a link a loss should use. */
function outputLinkOf(ir: Ir): OnnxImport['outputLink'] {
  const b = ir.index().producer.get(ir.output);
  const rank = ir.wires[ir.output]!.shape.length;
  if (b?.kind === 'layer') return b.layer.kind === 'softmax' ? 'softmax' : undefined;
  if (b?.kind !== 'op') return undefined;
  const axis = b.op.attrs.axis;
  const last = axis === -1 || axis === rank - 1;
  if (b.op.def.name === 'Softmax' && last) return 'softmax';
  if (b.op.def.name === 'LogSoftmax' && last) return 'log-softmax';
  return undefined;
}
