import { RangeArgError, ShapeError } from '../errors.js';

export type DType = 'float32' | 'float64';
export type Data = Float32Array | Float64Array;
export type Shape = readonly number[];

/** Number of elements of a shape. */
export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function shapeString(shape: Shape): string {
  return `[${shape.map((d) => (d < 0 ? '*' : String(d))).join(',')}]`;
}

/** Shapes equal, where a dimension -1 matches anything. */
export function shapesMatch(a: Shape, b: Shape): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && a[i]! >= 0 && b[i]! >= 0) return false;
  return true;
}

/** The most elements a tensor may have (2³¹: 8 GiB of float32); more is a typed error, not the engine's RangeError. */
export const MAX_ELEMENTS = 2 ** 31;

export function allocData(dtype: DType, n: number): Data {
  if (!(n <= MAX_ELEMENTS)) throw new RangeArgError(`a tensor of ${n} elements is too large (at most ${MAX_ELEMENTS})`);
  return dtype === 'float64' ? new Float64Array(n) : new Float32Array(n);
}

export function dtypeOf(data: Data): DType {
  return data instanceof Float64Array ? 'float64' : 'float32';
}

/**
 * A dense row-major tensor over a typed array. Batch-first: a batch of vectors is [B, n].
 * A Tensor is a view: `data` may be shared (reshape shares, clone copies).
 */
export class Tensor {
  readonly shape: Shape;
  readonly data: Data;
  /** The array `data` is a view of, when it is one (rows): kept so that it stays alive. */
  private base?: Data;

  constructor(data: Data, shape: Shape) {
    if (data.length !== sizeOf(shape)) {
      throw new ShapeError(`tensor data has ${data.length} elements but shape ${shapeString(shape)} needs ${sizeOf(shape)}`);
    }
    this.data = data;
    this.shape = Object.freeze([...shape]);
  }

  static zeros(shape: Shape, dtype: DType = 'float32'): Tensor {
    return new Tensor(allocData(dtype, sizeOf(shape)), shape);
  }

  static full(shape: Shape, value: number, dtype: DType = 'float32'): Tensor {
    const t = Tensor.zeros(shape, dtype);
    t.data.fill(value);
    return t;
  }

  /** From a flat array of numbers and a shape. */
  static of(values: ArrayLike<number>, shape: Shape, dtype: DType = 'float32'): Tensor {
    const data = allocData(dtype, values.length);
    for (let i = 0; i < values.length; i++) data[i] = values[i]!;
    return new Tensor(data, shape);
  }

  /** From nested arrays: `Tensor.from([[0,1],[1,0]])` has shape [2,2]. */
  static from(nested: unknown, dtype: DType = 'float32'): Tensor {
    const shape: number[] = [];
    let cur: unknown = nested;
    while (Array.isArray(cur)) {
      shape.push(cur.length);
      cur = cur[0];
    }
    const flat: number[] = [];
    const walk = (v: unknown, depth: number): void => {
      if (depth === shape.length) {
        if (typeof v !== 'number') throw new ShapeError(`Tensor.from expects numbers at depth ${depth}, got ${typeof v}`);
        flat.push(v);
        return;
      }
      if (!Array.isArray(v) || v.length !== shape[depth]) {
        throw new ShapeError(`Tensor.from expects a ragged-free array: length ${shape[depth]} at depth ${depth}`);
      }
      for (const e of v) walk(e, depth + 1);
    };
    walk(nested, 0);
    return Tensor.of(flat, shape, dtype);
  }

  get dtype(): DType {
    return dtypeOf(this.data);
  }
  get size(): number {
    return this.data.length;
  }
  get rank(): number {
    return this.shape.length;
  }
  /** Size of the batch (first) axis. */
  get batch(): number {
    return this.shape[0] ?? 1;
  }

  /** Same data, new shape (one dimension may be -1). */
  reshape(shape: Shape): Tensor {
    const known = shape.filter((d) => d >= 0);
    const free = shape.length - known.length;
    if (free > 1) throw new ShapeError(`reshape to ${shapeString(shape)}: at most one dimension may be -1`);
    const out = free === 1 ? shape.map((d) => (d < 0 ? this.size / sizeOf(known) : d)) : shape;
    return new Tensor(this.data, out);
  }

  clone(): Tensor {
    return new Tensor(this.data.slice(), this.shape);
  }

  /** Converts to another dtype (copies). */
  to(dtype: DType): Tensor {
    const out = allocData(dtype, this.size);
    out.set(this.data);
    return new Tensor(out, this.shape);
  }

  get(...index: number[]): number {
    let off = 0;
    for (let i = 0; i < this.shape.length; i++) off = off * this.shape[i]! + (index[i] ?? 0);
    return this.data[off]!;
  }

  /**
   * Rows [start, end) of the batch axis, sharing memory. The view keeps this tensor's array
   * alive: memory a backend hands out (Backend.alloc) is freed when that array is collected.
   */
  rows(start: number, end: number): Tensor {
    const per = this.size / this.batch;
    const t = new Tensor(this.data.subarray(start * per, end * per), [end - start, ...this.shape.slice(1)]);
    t.base = this.base ?? this.data;
    return t;
  }

  toArray(): unknown {
    const build = (depth: number, off: number): unknown => {
      if (depth === this.shape.length) return this.data[off];
      const stride = sizeOf(this.shape.slice(depth + 1));
      return Array.from({ length: this.shape[depth]! }, (_, i) => build(depth + 1, off + i * stride));
    };
    return build(0, 0);
  }

  toString(): string {
    return `Tensor(${shapeString(this.shape)}, ${this.dtype})`;
  }
}
