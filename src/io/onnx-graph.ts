import type { Shape, Tensor } from '../tensor/tensor.js';
import { ATTR, ONNX_FLOAT, ONNX_INT64 } from './onnx-schema.js';

/** An attribute value, tagged with its ONNX type: float, int, string or list of ints. */
export type Attr = { f: number } | { i: number } | { s: string } | { ints: readonly number[] };

/**
 * A value flowing through the exported graph: its name and its per-sample shape (the
 * ONNX tensor is [batch, ...shape]). `name` is null for the empty value (the monoidal
 * unit I, what `discard` produces), which a concatenation simply leaves out.
 */
export interface Value {
  readonly name: string | null;
  readonly shape: Shape;
}

/** A parameter tensor with the name it has in the model file (it keeps that name in the graph). */
export interface NamedParam {
  readonly name: string;
  readonly tensor: Tensor;
}

function encodeAttr(name: string, a: Attr): object {
  if ('f' in a) return { name, type: ATTR.FLOAT, f: a.f };
  if ('i' in a) return { name, type: ATTR.INT, i: a.i };
  if ('s' in a) return { name, type: ATTR.STRING, s: new TextEncoder().encode(a.s) };
  return { name, type: ATTR.INTS, ints: [...a.ints] };
}

/** Little-endian float32 bytes of a tensor (float64 parameters are rounded to float32). */
function float32Bytes(t: Tensor): Uint8Array {
  const out = new Uint8Array(4 * t.size);
  const view = new DataView(out.buffer);
  for (let i = 0; i < t.size; i++) view.setFloat32(4 * i, t.data[i]!, true);
  return out;
}

/** Nodes and initializers of an ONNX graph, as plain objects for the protobuf encoder. */
export class OnnxGraph {
  readonly nodes: object[] = [];
  readonly initializers: object[] = [];
  private count = 0;
  private readonly named = new Set<string>();

  /** A fresh value name. */
  fresh(hint: string): string {
    return `${hint}_${this.count++}`;
  }

  /** Appends a node `op(inputs) → outputs` (a count of fresh names, or the names) and returns the names of its outputs. */
  node(op: string, inputs: readonly string[], attrs: Record<string, Attr> = {}, outputs: number | readonly string[] = 1): string[] {
    const names = typeof outputs === 'number' ? Array.from({ length: outputs }, () => this.fresh(op.toLowerCase())) : [...outputs];
    this.nodes.push({
      op_type: op,
      name: `${op}_${this.nodes.length}`,
      input: [...inputs],
      output: names,
      attribute: Object.entries(attrs).map(([k, a]) => encodeAttr(k, a)),
    });
    return names;
  }

  /** A float32 initializer holding a parameter tensor, under its model-file name (once, however often it is read: a tied weight). */
  weight(p: NamedParam): string {
    if (this.named.has(p.name)) return p.name;
    this.named.add(p.name);
    this.initializers.push({ name: p.name, dims: [...p.tensor.shape], data_type: ONNX_FLOAT, raw_data: float32Bytes(p.tensor) });
    return p.name;
  }

  /** An int64 constant (e.g. the sizes of a Split). */
  int64(hint: string, values: readonly number[]): string {
    const name = this.fresh(hint);
    this.initializers.push({ name, dims: [values.length], data_type: ONNX_INT64, int64_data: [...values] });
    return name;
  }
}
