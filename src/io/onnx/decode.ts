import { FileFormatError } from '../errors.js';
import { ELEM_TYPE_OF, onnxSchema } from './schema.js';
import type { ElemType } from './schema.js';
import { bytesSource, scanOnnx } from './scan.js';

/**
 * An ONNX ModelProto decoded into what import reads: the main graph (its nodes in file order,
 * initializers as tensors of any element type, inputs and outputs with their element types and
 * dimensions) and the subgraphs of If. The bytes are first walked by scanOnnx, which bounds
 * every count, so decoding builds nothing the limits do not allow; each tensor's declared size
 * is checked against the bytes the file holds for it before its array is made.
 */

/** A tensor of the file: float data as float32 (double kept as float64), integers and booleans as exact float64 numbers. */
export interface OnnxTensor {
  readonly name: string;
  readonly dims: readonly number[];
  readonly type: ElemType;
  readonly data: Float32Array | Float64Array;
}

export type OnnxAttr =
  number | string | readonly number[] | readonly string[] | OnnxTensor | OnnxGraphProto | readonly OnnxTensor[] | readonly OnnxGraphProto[];

export interface OnnxNode {
  readonly name: string;
  readonly op: string;
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs: ReadonlyMap<string, OnnxAttr>;
}

/** A graph input or output: element type ('sequence' and 'map' for the types import refuses) and dimensions (a symbolic one is its name). */
export interface OnnxValueInfo {
  readonly name: string;
  readonly type: ElemType | 'sequence' | 'map' | undefined;
  readonly dims: readonly (number | string)[] | undefined;
}

export interface OnnxGraphProto {
  readonly name: string;
  readonly nodes: readonly OnnxNode[];
  readonly initializers: readonly OnnxTensor[];
  /** Inputs that are not initializers. */
  readonly inputs: readonly OnnxValueInfo[];
  readonly outputs: readonly OnnxValueInfo[];
}

export interface OnnxModel {
  readonly irVersion: number;
  readonly opset: number;
  readonly producer: string;
  readonly graph: OnnxGraphProto;
  /** Other operator sets the model imports (domain → version). */
  readonly domains: ReadonlyMap<string, number>;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- protobufjs's decoded objects are untyped */
type Raw = Record<string, any>;

/** Bytes per element in raw_data, by element type. */
const RAW_BYTES: Partial<Record<ElemType, number>> = {
  float: 4,
  double: 8,
  float16: 2,
  bfloat16: 2,
  int8: 1,
  uint8: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
  bool: 1,
};

/** Where the listed (non-raw) values of each type are. */
const LISTED_FIELD: Partial<Record<ElemType, string>> = {
  float: 'float_data',
  double: 'double_data',
  int64: 'int64_data',
  uint32: 'uint64_data',
  uint64: 'uint64_data',
};

/** IEEE half precision bits to a number. */
function half(bits: number): number {
  const s = bits & 0x8000 ? -1 : 1,
    e = (bits >> 10) & 0x1f,
    f = bits & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

function readRaw(view: DataView, type: ElemType, i: number): number {
  switch (type) {
    case 'float':
      return view.getFloat32(4 * i, true);
    case 'double':
      return view.getFloat64(8 * i, true);
    case 'float16':
      return half(view.getUint16(2 * i, true));
    case 'bfloat16':
      return new Float32Array(new Uint32Array([view.getUint16(2 * i, true) << 16]).buffer)[0]!;
    case 'int8':
      return view.getInt8(i);
    case 'uint8':
    case 'bool':
      return view.getUint8(i);
    case 'int16':
      return view.getInt16(2 * i, true);
    case 'uint16':
      return view.getUint16(2 * i, true);
    case 'int32':
      return view.getInt32(4 * i, true);
    case 'uint32':
      return view.getUint32(4 * i, true);
    case 'int64':
      return Number(view.getBigInt64(8 * i, true));
    default:
      return Number(view.getBigUint64(8 * i, true));
  }
}

/** A tensor's values, after checking its declared size against the data present. */
export function decodeTensor(t: Raw, where: string): OnnxTensor {
  const name = String(t.name ?? '');
  const dims = ((t.dims ?? []) as unknown[]).map(Number);
  const what = `${where} '${name}'`;
  if (t.data_location === 1 || (t.external_data ?? []).length)
    throw new FileFormatError(`${what} keeps its data in an external file; import reads self-contained .onnx files (save with all tensors inside)`);
  if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0))
    throw new FileFormatError(`${what} has dimensions [${dims.join(',')}]; expected non-negative integers`);
  const count = dims.reduce((a, b) => a * b, 1);
  const type = ELEM_TYPE_OF.get(Number(t.data_type ?? 0));
  const size = type && RAW_BYTES[type];
  if (!type || !size) throw new FileFormatError(`${what} has element type ${type ?? Number(t.data_type ?? 0)}; import reads numbers and booleans`);
  if (count > 2 ** 28) throw new FileFormatError(`${what} declares ${count} elements, more than ${2 ** 28}`);
  const raw: Uint8Array | undefined = t.raw_data && t.raw_data.length ? t.raw_data : undefined;
  const listed: ArrayLike<unknown> = (t[LISTED_FIELD[type] ?? 'int32_data'] ?? []) as ArrayLike<unknown>;
  const present = raw ? raw.length : listed.length * size;
  // the declared size must be what the file holds, before an array of that size is made
  if (present !== count * size)
    throw new FileFormatError(`${what}: dimensions [${dims.join(',')}] need ${count * size} bytes but the file holds ${present} for it (truncated or corrupt)`);
  const floats = type === 'float' || type === 'float16' || type === 'bfloat16';
  const data = floats ? new Float32Array(count) : new Float64Array(count);
  if (raw) {
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    for (let i = 0; i < count; i++) data[i] = readRaw(view, type, i);
  } else {
    for (let i = 0; i < count; i++) {
      const v = Number(listed[i]);
      data[i] = type === 'float16' ? half(v) : type === 'bfloat16' ? new Float32Array(new Uint32Array([v << 16]).buffer)[0]! : v;
    }
  }
  return { name, dims, type, data };
}

function decodeAttr(a: Raw, node: string, depth: number): OnnxAttr {
  const where = `attribute '${a.name}' of node '${node}'`;
  switch (Number(a.type)) {
    case 1:
      return Number(a.f ?? 0);
    case 2:
      return Number(a.i ?? 0);
    case 3:
      return new TextDecoder().decode(a.s ?? new Uint8Array());
    case 4:
      return decodeTensor(a.t ?? {}, `tensor ${where}`);
    case 5:
      return decodeGraph(a.g ?? {}, depth + 1);
    case 6:
      return ((a.floats ?? []) as unknown[]).map(Number);
    case 7:
      return ((a.ints ?? []) as unknown[]).map(Number);
    case 8:
      return ((a.strings ?? []) as Uint8Array[]).map((s) => new TextDecoder().decode(s));
    case 9:
      return ((a.tensors ?? []) as Raw[]).map((t) => decodeTensor(t, `tensor ${where}`));
    case 10:
      return ((a.graphs ?? []) as Raw[]).map((g) => decodeGraph(g, depth + 1));
    default:
      throw new FileFormatError(`${where} has attribute type ${a.type}, which import does not read`);
  }
}

function valueInfo(v: Raw): OnnxValueInfo {
  const t = v.type ?? {};
  if (t.sequence_type) return { name: String(v.name), type: 'sequence', dims: undefined };
  if (t.map_type) return { name: String(v.name), type: 'map', dims: undefined };
  const tt = t.tensor_type;
  const dims = tt?.shape
    ? ((tt.shape.dim ?? []) as Raw[]).map((d) => (d.dim_value !== undefined && d.dim_value !== null ? Number(d.dim_value) : String(d.dim_param ?? '?')))
    : undefined;
  return { name: String(v.name), type: tt?.elem_type !== undefined ? ELEM_TYPE_OF.get(Number(tt.elem_type)) : undefined, dims };
}

/** A graph; `depth` counts the subgraphs around it (bounded by the scan). */
function decodeGraph(g: Raw, depth: number): OnnxGraphProto {
  if ((g.sparse_initializer ?? []).length) throw new FileFormatError('the ONNX graph has sparse initializers, which import does not read');
  const initializers = ((g.initializer ?? []) as Raw[]).map((t) => decodeTensor(t, 'initializer'));
  const inits = new Set(initializers.map((t) => t.name));
  const nodes: OnnxNode[] = ((g.node ?? []) as Raw[]).map((n, i) => {
    const name = String(n.name || `${n.op_type}_${i}`);
    return {
      name,
      op: String(n.op_type ?? ''),
      domain: String(n.domain ?? ''),
      inputs: ((n.input ?? []) as unknown[]).map(String),
      outputs: ((n.output ?? []) as unknown[]).map(String),
      attrs: new Map<string, OnnxAttr>(((n.attribute ?? []) as Raw[]).map((a) => [String(a.name), decodeAttr(a, name, depth)])),
    };
  });
  return {
    name: String(g.name ?? ''),
    nodes,
    initializers,
    inputs: ((g.input ?? []) as Raw[]).filter((v) => !inits.has(String(v.name))).map(valueInfo),
    outputs: ((g.output ?? []) as Raw[]).map(valueInfo),
  };
}

/** Decodes ModelProto bytes, after scanOnnx has bounded what they hold (a FileFormatError when they are not a model). */
export function decodeOnnx(bytes: Uint8Array): OnnxModel {
  scanOnnx(bytesSource(bytes));
  const ModelProto = onnxSchema().lookupType('onnx.ModelProto');
  let m: Raw;
  try {
    m = ModelProto.toObject(ModelProto.decode(bytes), { longs: Number, defaults: false });
  } catch (e) {
    throw new FileFormatError(`not an ONNX model: the bytes do not decode as a ModelProto (${(e as Error).message})`);
  }
  const g: Raw | undefined = m.graph;
  if (!g || !(g.node ?? []).length) throw new FileFormatError('not an ONNX model: it has no graph, or a graph without nodes');
  const opsets = (m.opset_import ?? []) as Raw[];
  const opset = opsets.find((o) => !o.domain || o.domain === 'ai.onnx')?.version;
  return {
    irVersion: Number(m.ir_version ?? 0),
    opset: Number(opset ?? 0),
    producer: `${m.producer_name ?? ''} ${m.producer_version ?? ''}`.trim(),
    graph: decodeGraph(g, 0),
    domains: new Map(opsets.filter((o) => o.domain && o.domain !== 'ai.onnx').map((o) => [String(o.domain), Number(o.version ?? 0)])),
  };
}
