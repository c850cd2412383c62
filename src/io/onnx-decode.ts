import { MAX_PARAM_ELEMENTS } from '../para/composite.js';
import { Tensor } from '../tensor/tensor.js';
import { FileFormatError } from './errors.js';
import { ONNX_DOUBLE, ONNX_FLOAT, ONNX_INT32, ONNX_INT64, onnxSchema } from './onnx-schema.js';

/**
 * An ONNX ModelProto decoded into what import reads: the nodes in order, the constants
 * (initializers and Constant nodes) as tensors, and the graph's inputs and outputs with
 * their shapes. Every constant's declared size is checked against the bytes the file holds
 * for it before anything is allocated for it.
 */

/** protobuf's own limit on a message: 2 GiB. */
export const MAX_ONNX_BYTES = 2 ** 31 - 1;

export type OnnxAttr = number | string | readonly number[] | OnnxConst;

export interface OnnxNode {
  readonly name: string;
  readonly op: string;
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: ReadonlyMap<string, OnnxAttr>;
}

/** A constant tensor: float data as a float32 Tensor, integer data as numbers. */
export interface OnnxConst {
  readonly name: string;
  readonly dims: readonly number[];
  readonly tensor?: Tensor;
  readonly ints?: readonly number[];
}

/** A graph input or output: its name and dimensions (a symbolic dimension is its name). */
export interface OnnxValueInfo {
  readonly name: string;
  readonly dims: readonly (number | string)[];
}

export interface OnnxModel {
  readonly irVersion: number;
  readonly opset: number;
  readonly producer: string;
  readonly nodes: readonly OnnxNode[];
  readonly constants: ReadonlyMap<string, OnnxConst>;
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

/* eslint-disable @typescript-eslint/no-explicit-any -- protobufjs's decoded objects are untyped */
type Raw = Record<string, any>;

const ELEMENT_BYTES: Record<number, number> = { [ONNX_FLOAT]: 4, [ONNX_DOUBLE]: 8, [ONNX_INT64]: 8, [ONNX_INT32]: 4 };
const TYPE_NAMES: Record<number, string> = {
  0: 'UNDEFINED',
  1: 'FLOAT',
  2: 'UINT8',
  3: 'INT8',
  4: 'UINT16',
  5: 'INT16',
  6: 'INT32',
  7: 'INT64',
  8: 'STRING',
  9: 'BOOL',
  10: 'FLOAT16',
  11: 'DOUBLE',
  12: 'UINT32',
  13: 'UINT64',
  16: 'BFLOAT16',
};

/** A constant's values, after checking its declared size against the data present. */
function decodeTensor(t: Raw, where: string): OnnxConst {
  const name = String(t.name ?? '');
  const dims = ((t.dims ?? []) as unknown[]).map(Number);
  const what = `${where} '${name}'`;
  if (t.data_location === 1 || (t.external_data ?? []).length)
    throw new FileFormatError(`${what} keeps its data in an external file; import reads self-contained .onnx files (save with all tensors inside)`);
  if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw new FileFormatError(`${what} has dimensions [${dims.join(',')}]; expected non-negative integers`);
  const count = dims.reduce((a, b) => a * b, 1);
  const type = Number(t.data_type ?? 0);
  const size = ELEMENT_BYTES[type];
  if (size === undefined)
    throw new FileFormatError(`${what} has element type ${TYPE_NAMES[type] ?? type}; import reads FLOAT, DOUBLE, INT32 and INT64 tensors`);
  if (count > MAX_PARAM_ELEMENTS) throw new FileFormatError(`${what} declares ${count} elements, more than ${MAX_PARAM_ELEMENTS}`);
  const raw: Uint8Array | undefined = t.raw_data && t.raw_data.length ? t.raw_data : undefined;
  const listed: ArrayLike<unknown> =
    type === ONNX_FLOAT
      ? (t.float_data ?? [])
      : type === ONNX_DOUBLE
        ? (t.double_data ?? [])
        : type === ONNX_INT64
          ? (t.int64_data ?? [])
          : (t.int32_data ?? []);
  const present = raw ? raw.length : listed.length * size;
  // the declared size must be what the file holds, before a buffer of that size is made
  if (present !== count * size)
    throw new FileFormatError(`${what}: dimensions [${dims.join(',')}] need ${count * size} bytes but the file holds ${present} for it (truncated or corrupt)`);
  const view = raw && new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  if (type === ONNX_FLOAT || type === ONNX_DOUBLE) {
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = view ? (type === ONNX_FLOAT ? view.getFloat32(4 * i, true) : view.getFloat64(8 * i, true)) : Number(listed[i]);
    return { name, dims, tensor: new Tensor(out, dims) };
  }
  const ints = Array.from({ length: count }, (_, i) =>
    view ? (type === ONNX_INT64 ? Number(view.getBigInt64(8 * i, true)) : view.getInt32(4 * i, true)) : Number(listed[i]),
  );
  return { name, dims, ints };
}

function decodeAttr(a: Raw, node: string): OnnxAttr {
  const where = `attribute '${a.name}' of node '${node}'`;
  switch (Number(a.type)) {
    case 1:
      return Number(a.f ?? 0);
    case 2:
      return Number(a.i ?? 0);
    case 3:
      return new TextDecoder().decode(a.s ?? new Uint8Array());
    case 4:
      // a tensor of a type import does not read is refused only if a rule asks for it
      try {
        return decodeTensor(a.t ?? {}, `tensor ${where}`);
      } catch (e) {
        if (!(e instanceof FileFormatError)) throw e;
        return `<${e.message}>`;
      }
    case 6:
      return ((a.floats ?? []) as unknown[]).map(Number);
    case 7:
      return ((a.ints ?? []) as unknown[]).map(Number);
    default:
      return `<${where}: type ${a.type}>`;
  }
}

function valueInfo(v: Raw): OnnxValueInfo {
  const dims = ((v.type?.tensor_type?.shape?.dim ?? []) as Raw[]).map((d) =>
    d.dim_value !== undefined && d.dim_value !== null ? Number(d.dim_value) : String(d.dim_param ?? '?'),
  );
  return { name: String(v.name), dims };
}

/**
 * What torch.onnx.export computes from constants alone, evaluated here: an Identity of a
 * constant (it writes one for every initializer equal to another, e.g. the ones of two
 * LayerNorms), and scalar arithmetic (√dh written as dh ** 0.5).
 */
const SCALAR_OPS: Record<string, (a: number, b: number) => number> = {
  Pow: (a, b) => a ** b,
  Mul: (a, b) => a * b,
  Div: (a, b) => a / b,
  Add: (a, b) => a + b,
  Sub: (a, b) => a - b,
  Sqrt: (a) => Math.sqrt(a),
};

function foldConstants(nodes: readonly OnnxNode[], constants: Map<string, OnnxConst>): void {
  const scalar = (name: string): number | undefined => {
    const c = constants.get(name);
    return c?.tensor ? (c.tensor.size === 1 ? c.tensor.data[0] : undefined) : c?.ints?.length === 1 ? c.ints[0] : undefined;
  };
  for (const n of nodes) {
    const same = n.op === 'Identity' ? constants.get(n.inputs[0] ?? '') : undefined;
    if (same) constants.set(n.outputs[0]!, { ...same, name: n.outputs[0]! });
    const f = SCALAR_OPS[n.op];
    const args = n.inputs.map(scalar);
    if (!f || args.length === 0 || args.some((a) => a === undefined)) continue;
    constants.set(n.outputs[0]!, { name: n.outputs[0]!, dims: [], tensor: new Tensor(Float32Array.of(f(args[0]!, args[1] ?? 0)), []) });
  }
}

/** Decodes ModelProto bytes (a FileFormatError when they are not one). */
export function decodeOnnx(bytes: Uint8Array): OnnxModel {
  if (bytes.length > MAX_ONNX_BYTES) throw new FileFormatError(`ONNX file of ${bytes.length} bytes is larger than protobuf's 2 GiB limit`);
  const ModelProto = onnxSchema().lookupType('onnx.ModelProto');
  let m: Raw;
  try {
    m = ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, defaults: false });
  } catch (e) {
    throw new FileFormatError(`not an ONNX model: the bytes do not decode as a ModelProto (${(e as Error).message})`);
  }
  const g: Raw | undefined = m.graph;
  if (!g || !(g.node ?? []).length) throw new FileFormatError('not an ONNX model: it has no graph, or a graph without nodes');
  if ((g.sparse_initializer ?? []).length) throw new FileFormatError('the ONNX graph has sparse initializers, which import does not read');
  const constants = new Map<string, OnnxConst>();
  for (const t of g.initializer ?? []) constants.set(String(t.name), decodeTensor(t, 'initializer'));
  const nodes: OnnxNode[] = (g.node as Raw[]).map((n, i) => {
    const name = String(n.name || `${n.op_type}_${i}`);
    const attrs = new Map<string, OnnxAttr>(((n.attribute ?? []) as Raw[]).map((a) => [String(a.name), decodeAttr(a, name)]));
    return {
      name,
      op: String(n.op_type ?? ''),
      domain: String(n.domain ?? ''),
      inputs: ((n.input ?? []) as unknown[]).map(String),
      outputs: ((n.output ?? []) as unknown[]).map(String),
      attrs,
    };
  });
  // Constant nodes are constants too (torch.onnx.export writes shapes and scalars as them)
  for (const n of nodes) {
    if (n.op !== 'Constant') continue;
    const v = n.attrs.get('value') ?? n.attrs.get('value_ints') ?? n.attrs.get('value_floats') ?? n.attrs.get('value_int') ?? n.attrs.get('value_float');
    const c: OnnxConst =
      typeof v === 'object' && v !== null && 'dims' in v
        ? { ...v, name: n.outputs[0]! }
        : Array.isArray(v)
          ? { name: n.outputs[0]!, dims: [v.length], ints: v as number[] }
          : typeof v === 'number'
            ? { name: n.outputs[0]!, dims: [], ints: [v] }
            : { name: n.outputs[0]!, dims: [] };
    constants.set(n.outputs[0]!, c);
  }
  foldConstants(nodes, constants);
  const opset = ((m.opset_import ?? []) as Raw[]).find((o) => !o.domain)?.version;
  return {
    irVersion: Number(m.ir_version ?? 0),
    opset: Number(opset ?? 0),
    producer: `${m.producer_name ?? ''} ${m.producer_version ?? ''}`.trim(),
    nodes,
    constants,
    inputs: ((g.input ?? []) as Raw[]).filter((v) => !constants.has(String(v.name))).map(valueInfo),
    outputs: ((g.output ?? []) as Raw[]).map(valueInfo),
  };
}
