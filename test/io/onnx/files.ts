import { onnxSchema } from '../../../src/io/onnx/schema.js';

/**
 * ONNX files written by hand for the tests: graphs of nodes on named values, with float
 * initializers, encoded by the same protobuf schema import reads. What PyTorch would never
 * write (cycles, millions of empty nodes, NaN weights) is as easy to write as what it would.
 */
export interface HandNode {
  readonly op: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly name?: string;
  readonly domain?: string;
  readonly attrs?: Readonly<Record<string, number | string | readonly number[]>>;
}

export interface HandGraph {
  readonly nodes: readonly HandNode[];
  readonly inits?: Readonly<Record<string, { dims: readonly number[]; values: readonly number[] }>>;
  /** int64 initializers (sizes, axes, indices). */
  readonly ints?: Readonly<Record<string, { dims: readonly number[]; values: readonly number[] }>>;
  /** Input dims ('N' a symbolic batch); default ['N', 4]. */
  readonly input?: readonly (number | string)[];
  readonly inputName?: string;
  /** The input's element type (TensorProto.DataType; default 1, float). */
  readonly inputType?: number;
  readonly output?: string;
  readonly opset?: number;
}

const dimOf = (d: number | string): object => (typeof d === 'number' ? { dim_value: d } : { dim_param: d });

function attr(name: string, v: number | string | readonly number[]): object {
  if (typeof v === 'string') return { name, type: 3, s: new TextEncoder().encode(v) };
  if (Array.isArray(v)) return { name, type: 7, ints: v };
  return Number.isInteger(v) ? { name, type: 2, i: v } : { name, type: 1, f: v };
}

export function onnxBytes(g: HandGraph): Uint8Array {
  const ModelProto = onnxSchema().lookupType('onnx.ModelProto');
  const input = g.inputName ?? 'x';
  return ModelProto.encode(
    ModelProto.fromObject({
      ir_version: 8,
      opset_import: [{ domain: '', version: g.opset ?? 17 }],
      producer_name: 'test',
      graph: {
        node: g.nodes.map((n, i) => ({
          op_type: n.op,
          name: n.name ?? `${n.op}_${i}`,
          ...(n.domain ? { domain: n.domain } : {}),
          input: [...n.inputs],
          output: [...n.outputs],
          attribute: Object.entries(n.attrs ?? {}).map(([k, v]) => attr(k, v)),
        })),
        initializer: [
          ...Object.entries(g.inits ?? {}).map(([name, t]) => {
            const raw = new Uint8Array(4 * t.values.length);
            const view = new DataView(raw.buffer);
            t.values.forEach((v, i) => view.setFloat32(4 * i, v, true));
            return { name, dims: [...t.dims], data_type: 1, raw_data: raw };
          }),
          ...Object.entries(g.ints ?? {}).map(([name, t]) => ({ name, dims: [...t.dims], data_type: 7, int64_data: [...t.values] })),
        ],
        input: [{ name: input, type: { tensor_type: { elem_type: g.inputType ?? 1, shape: { dim: (g.input ?? ['N', 4]).map(dimOf) } } } }],
        output: [{ name: g.output ?? 'y', type: { tensor_type: { elem_type: 1 } } }],
      },
    }),
  ).finish();
}

/** A chain of n Relu nodes. */
export function chain(n: number): Uint8Array {
  return onnxBytes({
    nodes: Array.from({ length: n }, (_, i) => ({ op: 'Relu', inputs: [i === 0 ? 'x' : `v${i}`], outputs: [i === n - 1 ? 'y' : `v${i + 1}`] })),
  });
}

/** Skip connections nested `depth` deep: v₀ = x, vₖ₊₁ = vₖ + relu(vₖ), read inside out — the last Add joins x. */
export function nestedResiduals(depth: number): Uint8Array {
  // a_k = relu(a_{k−1}) down the spine, then back up: s_k = a_k + s_{k+1}, s_depth = a_depth
  const nodes: HandNode[] = [];
  for (let k = 1; k <= depth; k++) nodes.push({ op: 'Relu', inputs: [k === 1 ? 'x' : `a${k - 1}`], outputs: [`a${k}`] });
  for (let k = depth - 1; k >= 0; k--)
    nodes.push({ op: 'Add', inputs: [k === 0 ? 'x' : `a${k}`, k === depth - 1 ? `a${depth}` : `s${k + 1}`], outputs: [k === 0 ? 'y' : `s${k}`] });
  return onnxBytes({ nodes });
}

/** A ModelProto whose graph is `count` empty NodeProtos (2 bytes each), written directly as protobuf bytes. */
export function emptyNodes(count: number): Uint8Array {
  // graph: field 7 of ModelProto; node: field 1 of GraphProto, each the two bytes 0x0a 0x00
  const graph = new Uint8Array(2 * count);
  for (let i = 0; i < count; i++) graph[2 * i] = 0x0a;
  const lenBytes: number[] = [];
  for (let n = graph.length; ; n = Math.floor(n / 128)) {
    lenBytes.push((n & 0x7f) | (n >= 128 ? 0x80 : 0));
    if (n < 128) break;
  }
  const out = new Uint8Array(1 + lenBytes.length + graph.length);
  out[0] = 0x3a; // field 7, wire type 2
  out.set(lenBytes, 1);
  out.set(graph, 1 + lenBytes.length);
  return out;
}
