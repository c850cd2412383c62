import { ShapeError } from '../errors.js';
import { backend } from './registry.js';
import type { UnaryOp } from './backend.js';
import { Tensor, shapeString } from './tensor.js';

/**
 * Tensor operations for users and tests: each validates its inputs, then calls a kernel of
 * the current backend (tfjs-core's op → kernel split). Layers call the kernels directly.
 */

/** op(A)·op(B) for 2-D tensors; transposes are absorbed by the kernel, never materialised. */
export function matmul(a: Tensor, b: Tensor, opts: { transA?: boolean; transB?: boolean } = {}): Tensor {
  if (a.rank !== 2 || b.rank !== 2) throw new ShapeError(`matmul expects two matrices but got ${shapeString(a.shape)} and ${shapeString(b.shape)}`);
  const [m, k] = opts.transA ? [a.shape[1]!, a.shape[0]!] : [a.shape[0]!, a.shape[1]!];
  const [k2, n] = opts.transB ? [b.shape[1]!, b.shape[0]!] : [b.shape[0]!, b.shape[1]!];
  if (k !== k2) throw new ShapeError(`matmul: inner sizes differ: op(a) is [${m},${k}] but op(b) is [${k2},${n}]`);
  const c = Tensor.zeros([m, n], a.dtype === 'float64' || b.dtype === 'float64' ? 'float64' : 'float32');
  backend().gemm(Boolean(opts.transA), Boolean(opts.transB), m, n, k, a.data, b.data, c.data, false);
  return c;
}

/** Broadcasting shape of two shapes (NumPy rules). */
export function broadcastShape(a: readonly number[], b: readonly number[]): number[] {
  const n = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1,
      y = b[b.length - n + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new ShapeError(`cannot broadcast ${shapeString(a)} with ${shapeString(b)}`);
    out.push(Math.max(x, y));
  }
  return out;
}

function zipWith(a: Tensor, b: Tensor, f: (x: number, y: number) => number): Tensor {
  const shape = broadcastShape(a.shape, b.shape);
  const out = Tensor.zeros(shape, a.dtype === 'float64' || b.dtype === 'float64' ? 'float64' : 'float32');
  const strides = (s: readonly number[]): number[] => {
    const st = new Array(shape.length).fill(0);
    let acc = 1;
    for (let i = s.length - 1; i >= 0; i--) {
      const j = shape.length - s.length + i;
      st[j] = s[i] === 1 ? 0 : acc;
      acc *= s[i]!;
    }
    return st;
  };
  const sa = strides(a.shape),
    sb = strides(b.shape);
  const idx = new Array(shape.length).fill(0);
  for (let o = 0; o < out.size; o++) {
    let ia = 0,
      ib = 0;
    for (let d = 0; d < shape.length; d++) {
      ia += idx[d] * sa[d]!;
      ib += idx[d] * sb[d]!;
    }
    out.data[o] = f(a.data[ia]!, b.data[ib]!);
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]!) break;
      idx[d] = 0;
    }
  }
  return out;
}

/** a + b with broadcasting. */
export const add = (a: Tensor, b: Tensor): Tensor => zipWith(a, b, (x, y) => x + y);
/** a − b with broadcasting. */
export const sub = (a: Tensor, b: Tensor): Tensor => zipWith(a, b, (x, y) => x - y);
/** a ⊙ b with broadcasting. */
export const mul = (a: Tensor, b: Tensor): Tensor => zipWith(a, b, (x, y) => x * y);

/** f applied elementwise: a kernel-known function by name, or any JS function. */
export function map(t: Tensor, f: UnaryOp | ((x: number) => number)): Tensor {
  const out = Tensor.zeros(t.shape, t.dtype);
  if (typeof f === 'string') backend().unary(f, t.data, out.data);
  else for (let i = 0; i < t.size; i++) out.data[i] = f(t.data[i]!);
  return out;
}

/** Sum over one axis (removing it), or over everything (a scalar tensor of shape []). */
export function sum(t: Tensor, axis?: number): Tensor {
  if (axis === undefined) {
    let s = 0;
    for (let i = 0; i < t.size; i++) s += t.data[i]!;
    return Tensor.of([s], [], t.dtype);
  }
  const ax = axis < 0 ? t.rank + axis : axis;
  if (!(ax >= 0 && ax < t.rank)) throw new ShapeError(`sum: axis ${axis} is outside a tensor of rank ${t.rank}`);
  const outer = t.shape.slice(0, ax).reduce((a, b) => a * b, 1);
  const n = t.shape[ax]!;
  const inner = t.shape.slice(ax + 1).reduce((a, b) => a * b, 1);
  const out = Tensor.zeros([...t.shape.slice(0, ax), ...t.shape.slice(ax + 1)], t.dtype);
  for (let o = 0; o < outer; o++) for (let j = 0; j < n; j++) for (let i = 0; i < inner; i++) out.data[o * inner + i]! += t.data[(o * n + j) * inner + i]!;
  return out;
}

/** Mean over one axis, or over everything. */
export function mean(t: Tensor, axis?: number): Tensor {
  const s = sum(t, axis);
  const n = axis === undefined ? t.size : t.shape[axis < 0 ? t.rank + axis : axis]!;
  for (let i = 0; i < s.size; i++) s.data[i]! /= n;
  return s;
}

/** The transpose of a matrix (materialised: for users; kernels absorb transposes instead). */
export function transpose(t: Tensor): Tensor {
  if (t.rank !== 2) throw new ShapeError(`transpose expects a matrix but got ${shapeString(t.shape)}`);
  const [r, c] = t.shape as [number, number];
  const out = Tensor.zeros([c, r], t.dtype);
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) out.data[j * r + i] = t.data[i * c + j]!;
  return out;
}
