import type { Shape, Tensor } from '../../tensor/tensor.js';
import { ATTR, DATA_TYPES, ONNX_FLOAT, ONNX_INT64 } from './schema.js';

/** An attribute value, tagged with its ONNX type. */
export type Attr =
  | { f: number }
  | { i: number }
  | { s: string }
  | { ints: readonly number[] }
  | { floats: readonly number[] }
  | { t: { dims: readonly number[]; type: 'float' | 'int64'; values: readonly number[] } };

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
  if ('floats' in a) return { name, type: ATTR.FLOATS, floats: [...a.floats] };
  if ('t' in a) return { name, type: ATTR.TENSOR, t: tensorProto('', a.t.dims, a.t.type, a.t.values) };
  return { name, type: ATTR.INTS, ints: [...a.ints] };
}

function tensorProto(name: string, dims: readonly number[], type: 'float' | 'int64', values: ArrayLike<number>): object {
  if (type === 'int64') return { name, dims: [...dims], data_type: ONNX_INT64, int64_data: Array.from(values) };
  const out = new Uint8Array(4 * values.length);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setFloat32(4 * i, values[i]!, true);
  return { name, dims: [...dims], data_type: ONNX_FLOAT, raw_data: out };
}

/** Nodes and initializers of an ONNX graph at one opset, as plain objects for the protobuf encoder. */
export class OnnxGraph {
  readonly nodes: object[] = [];
  readonly initializers: object[] = [];
  private count = 0;
  private readonly named = new Set<string>();

  /** `opset`: the operator set the graph is written for (rules write what that opset has); `input`: the graph input's name. */
  constructor(
    readonly opset: number,
    readonly input = 'input',
  ) {}

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

  /** One output of a node. */
  one(op: string, inputs: readonly string[], attrs: Record<string, Attr> = {}): string {
    return this.node(op, inputs, attrs)[0]!;
  }

  /** A float32 initializer holding a parameter tensor, under its model-file name (once, however often it is read: a tied weight). */
  weight(p: NamedParam): string {
    if (this.named.has(p.name)) return p.name;
    this.named.add(p.name);
    this.initializers.push(tensorProto(p.name, p.tensor.shape, 'float', p.tensor.data));
    return p.name;
  }

  /** An int64 constant (e.g. the sizes of a Split), a 1-d list or, with `scalar`, one number. */
  int64(hint: string, values: readonly number[], scalar = false): string {
    const name = this.fresh(hint);
    this.initializers.push(tensorProto(name, scalar ? [] : [values.length], 'int64', values));
    return name;
  }

  /** A float32 constant of the given shape. */
  float(hint: string, values: ArrayLike<number>, shape: readonly number[]): string {
    const name = this.fresh(hint);
    this.initializers.push(tensorProto(name, shape, 'float', values));
    return name;
  }

  /** A float32 constant written as a Constant node: a value of the model that is not a weight (a mask, a table of angles), which import keeps constant. */
  constant(hint: string, values: ArrayLike<number>, shape: readonly number[]): string {
    return this.node('Constant', [], { value: { t: { dims: shape, type: 'float', values: Array.from(values) } } }, [this.fresh(hint)])[0]!;
  }

  /** x cast to an element type (float for paralens's values, bool or int64 where an operator wants them). */
  cast(x: string, to: keyof typeof DATA_TYPES): string {
    return this.one('Cast', [x], { to: { i: DATA_TYPES[to] } });
  }
}
