import { ParalensError, quote, RangeArgError } from '../../errors.js';
import type { Para } from '../../para/para.js';
import type { Shape, Tensor } from '../../tensor/tensor.js';
import { VERSION } from '../../version.js';
import { ExportError } from '../errors.js';
import { checkTheta } from '../model-file.js';
import { onnxRule } from './export-rules.js';
import { OnnxGraph } from './graph-proto.js';
import type { NamedParam, Value } from './graph-proto.js';
import { ONNX_FLOAT, onnxSchema } from './schema.js';

/** The default opset of exported models (opset 20 has Gelu with the tanh approximation). */
export const ONNX_OPSET = 20;
/** The opsets export writes, and the IR version each needs (onnx's versioning table: IR 7 for opsets 13–14, 8 for 15–18, 9 for 19–20). */
export const ONNX_OPSETS = [13, 14, 15, 16, 17, 18, 19, 20] as const;
export function irVersionFor(opset: number): number {
  return opset <= 14 ? 7 : opset <= 18 ? 8 : 9;
}

export interface OnnxExportOptions {
  /** The per-sample input shape, for a morphism that takes any shape (e.g. `conv2d(1,4,3) >> flatten`). */
  inputShape?: Shape;
  /** Graph name (default 'paralens'). */
  name?: string;
  /** The operator set to write (13 to 20; default 20): operators newer than it are written in older ones. */
  opset?: number;
}

/** The graph's input or output: a float tensor [batch, ...shape] with a symbolic batch axis. */
function valueInfo(name: string, shape: Shape): object {
  const dim = [{ dim_param: 'batch' }, ...shape.map((d) => ({ dim_value: d }))];
  return { name, type: { tensor_type: { elem_type: ONNX_FLOAT, shape: { dim } } } };
}

/** Exports one morphism by its rule, checking it was given its own parameters. */
function emit(m: Para, theta: readonly NamedParam[], x: Value, g: OnnxGraph): Value {
  const rule = onnxRule(m);
  if (theta.length !== m.params.length) throw new ExportError(`cannot export layer ${quote(m)}: it has ${m.params.length} parameters but got ${theta.length}`);
  return rule({ m, theta, x, g, emit: (c, t, v) => emit(c, t, v, g) });
}

/**
 * The ONNX model (serialised ModelProto bytes) of a morphism with parameters θ: input
 * `input` [batch, ...dom], output `output` [batch, ...cod], parameters as float32
 * initializers named as in the model file. Throws an ExportError naming the layer when
 * some part has no ONNX counterpart.
 */
export function exportOnnx(model: Para, theta: readonly Tensor[], opts: OnnxExportOptions = {}): Uint8Array {
  return buildOnnx(model, theta, opts).bytes;
}

/** What an export produced: the ModelProto bytes, the op types of its nodes, and its per-sample input and output shapes. */
export interface OnnxExport {
  readonly bytes: Uint8Array;
  readonly ops: readonly string[];
  readonly inputShape: Shape;
  readonly outputShape: Shape;
  /** The morphism exported (its domain fixed). */
  readonly model: Para;
  readonly opset: number;
}

/** exportOnnx, also telling what was built. */
export function buildOnnx(model: Para, theta: readonly Tensor[], opts: OnnxExportOptions = {}): OnnxExport {
  let m = model;
  if (!m.dom) {
    if (!opts.inputShape)
      throw new ExportError(`cannot export ${model} to ONNX: it takes inputs of any shape; give the per-sample input shape (--input-shape, e.g. 1,28,28)`);
    try {
      m = model.at(opts.inputShape);
    } catch (e) {
      if (!(e instanceof ParalensError)) throw e;
      throw new ExportError(`cannot export ${model} to ONNX at input shape [${opts.inputShape.join(',')}]: ${e.message}`);
    }
  }
  checkTheta(m, theta);
  const opset = opts.opset ?? ONNX_OPSET;
  if (!(ONNX_OPSETS as readonly number[]).includes(opset))
    throw new RangeArgError(`ONNX export writes opsets ${ONNX_OPSETS[0]} to ${ONNX_OPSETS[ONNX_OPSETS.length - 1]}, not ${opset}`);
  const g = new OnnxGraph(opset);
  const named = m.params.map((p, i) => ({ name: p.name, tensor: theta[i]! }));
  const y = emit(m, named, { name: 'input', shape: m.dom! }, g);
  if (y.name === null) throw new ExportError(`cannot export ${m} to ONNX: its output is empty`);
  // name the result 'output': rename the last node's output when it is the result, else add an Identity
  const last = g.nodes[g.nodes.length - 1] as { output: string[] } | undefined;
  if (last && last.output.length === 1 && last.output[0] === y.name) last.output = ['output'];
  else g.node('Identity', [y.name], {}, ['output']);
  const spec = String(m);
  const root = onnxSchema();
  const ModelProto = root.lookupType('onnx.ModelProto');
  const message = ModelProto.fromObject({
    ir_version: irVersionFor(opset),
    opset_import: [{ domain: '', version: opset }],
    producer_name: 'paralens',
    producer_version: VERSION,
    doc_string: spec,
    metadata_props: [{ key: 'spec', value: spec }],
    graph: {
      name: opts.name ?? 'paralens',
      node: g.nodes,
      initializer: g.initializers,
      input: [valueInfo('input', m.dom!)],
      output: [valueInfo('output', y.shape)],
    },
  });
  const ops = g.nodes.map((n) => (n as { op_type: string }).op_type);
  return { bytes: ModelProto.encode(message).finish(), ops, inputShape: m.dom!, outputShape: y.shape, model: m, opset };
}
