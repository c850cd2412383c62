import { allocData, sizeOf, Tensor } from '../tensor/tensor.js';
import type { Data, DType, Shape } from '../tensor/tensor.js';
import { backend } from '../tensor/registry.js';
import type { Ctx } from '../para/para.js';

/**
 * Strided walks over row-major arrays: broadcasting (NumPy's rules, ONNX's multidirectional
 * broadcasting), transposition, and the reduction that is broadcasting's adjoint. Every
 * operator that broadcasts or permutes axes calls these; none writes its own index arithmetic.
 */

/** Row-major strides of a shape. */
export function stridesOf(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/** Strides that read `shape` broadcast to `out` (aligned at the last axis; 0 along broadcast axes). */
export function broadcastStrides(shape: Shape, out: Shape): number[] {
  const own = stridesOf(shape);
  const st = new Array<number>(out.length).fill(0);
  for (let i = 0; i < shape.length; i++) {
    const j = out.length - shape.length + i;
    st[j] = shape[i] === 1 && out[j] !== 1 ? 0 : own[i]!;
  }
  return st;
}

/**
 * Calls run(o, offs, n) for each run of the last axis of `out`: o the output offset of the
 * run's first element, offs[k] the offset of operand k there (strides[k] its strides); the run
 * has n elements, operand k's step along it being strides[k][last].
 */
export function forEachRun(out: Shape, strides: readonly (readonly number[])[], run: (o: number, offs: readonly number[], n: number) => void): void {
  const rank = out.length;
  const total = sizeOf(out);
  if (total === 0) return;
  if (rank === 0)
    return run(
      0,
      strides.map(() => 0),
      1,
    );
  const n = out[rank - 1]!;
  const offs = strides.map(() => 0);
  const idx = new Array<number>(rank).fill(0);
  for (let o = 0; o < total; o += n) {
    run(o, offs, n);
    for (let d = rank - 2; d >= 0; d--) {
      idx[d]!++;
      for (let k = 0; k < strides.length; k++) offs[k]! += strides[k]![d]!;
      if (idx[d]! < out[d]!) break;
      for (let k = 0; k < strides.length; k++) offs[k]! -= strides[k]![d]! * out[d]!;
      idx[d] = 0;
    }
  }
}

/** out[i] = f(a, b, i) elementwise with broadcasting (i the output's offset); `out` has the broadcast shape and may be a. */
export function binaryMap(a: Tensor, b: Tensor, out: Tensor, f: (x: number, y: number, i: number) => number): void {
  const A = a.data,
    Bd = b.data,
    O = out.data;
  if (a.size === out.size && b.size === out.size) {
    for (let i = 0; i < O.length; i++) O[i] = f(A[i]!, Bd[i]!, i);
    return;
  }
  const sa = broadcastStrides(a.shape, out.shape),
    sb = broadcastStrides(b.shape, out.shape);
  const ia = sa[sa.length - 1] ?? 0,
    ib = sb[sb.length - 1] ?? 0;
  forEachRun(out.shape, [sa, sb], (o, [pa, pb], n) => {
    for (let j = 0, x = pa!, y = pb!; j < n; j++, x += ia, y += ib) O[o + j] = f(A[x]!, Bd[y]!, o + j);
  });
}

/** out = f(x₀, x₁, x₂) elementwise with broadcasting (Where). */
export function ternaryMap(xs: readonly [Tensor, Tensor, Tensor], out: Tensor, f: (a: number, b: number, c: number) => number): void {
  const [a, b, c] = xs;
  const st = xs.map((t) => broadcastStrides(t.shape, out.shape));
  const last = st.map((s) => s[s.length - 1] ?? 0);
  const O = out.data;
  forEachRun(out.shape, st, (o, offs, n) => {
    for (let j = 0; j < n; j++) O[o + j] = f(a.data[offs[0]! + j * last[0]!]!, b.data[offs[1]! + j * last[1]!]!, c.data[offs[2]! + j * last[2]!]!);
  });
}

/**
 * The adjoint of broadcasting `shape` to dy's shape: dy summed over the broadcast axes, as a
 * tensor of `shape` (dy itself when nothing was broadcast).
 */
export function sumToShape(dy: Tensor, shape: Shape, ctx: Ctx): Tensor {
  if (sizeOf(shape) === dy.size) return dy.shape.length === shape.length ? dy : new Tensor(dy.data, shape);
  const out = ctx.alloc(shape, dy.dtype);
  const n = sizeOf(shape);
  // the common cases by kernels: a bias of the last axis (rows of dy summed), a scalar
  const lastOnly = shape.length >= 1 && n === shape[shape.length - 1] && n === dy.shape[dy.shape.length - 1];
  if (lastOnly) {
    backend().sumRows(dy.data, dy.size / n, n, out.data, false);
    return out;
  }
  const st = broadcastStrides(shape, dy.shape);
  const step = st[st.length - 1] ?? 0;
  const O = out.data,
    D = dy.data;
  forEachRun(dy.shape, [st], (o, [p], len) => {
    for (let j = 0, q = p!; j < len; j++, q += step) O[q] = O[q]! + D[o + j]!;
  });
  return out;
}

/** x broadcast to `shape` in a fresh tensor. */
export function expandTo(x: Tensor, shape: Shape, ctx: Ctx): Tensor {
  const out = ctx.alloc(shape, x.dtype, true);
  if (x.size === out.size) {
    out.data.set(x.data);
    return out;
  }
  const st = broadcastStrides(x.shape, shape);
  const step = st[st.length - 1] ?? 0;
  const O = out.data,
    X = x.data;
  forEachRun(shape, [st], (o, [p], n) => {
    for (let j = 0, q = p!; j < n; j++, q += step) O[o + j] = X[q]!;
  });
  return out;
}

/** y = x with its axes permuted: y's axis i is x's axis perm[i]. */
export function permute(x: Tensor, perm: readonly number[], ctx: Ctx): Tensor {
  const shape = perm.map((p) => x.shape[p]!);
  const out = ctx.alloc(shape, x.dtype, true);
  permuteInto(x.data, x.shape, perm, out.data);
  return out;
}

/** permute into a given array (y's layout is x's axes in the order perm). */
export function permuteInto(x: Data, shape: Shape, perm: readonly number[], y: Data): void {
  const own = stridesOf(shape);
  const outShape = perm.map((p) => shape[p]!);
  const st = perm.map((p) => own[p]!);
  if (perm.every((p, i) => p === i)) {
    y.set(x.subarray(0, y.length));
    return;
  }
  // two blocks swapped ([A, B, P] → [B, A, P]): the backend's kernel
  const r = perm.length;
  if (r >= 2 && perm[0] === 1 && perm[1] === 0 && perm.slice(2).every((p, i) => p === i + 2)) {
    backend().swapAxes(x, shape[0]!, shape[1]!, sizeOf(shape.slice(2)), y);
    return;
  }
  const step = st[st.length - 1] ?? 0;
  forEachRun(outShape, [st], (o, [p], n) => {
    for (let j = 0, q = p!; j < n; j++, q += step) y[o + j] = x[q]!;
  });
}

/** The inverse permutation. */
export function inversePerm(perm: readonly number[]): number[] {
  const inv = new Array<number>(perm.length);
  perm.forEach((p, i) => (inv[p] = i));
  return inv;
}

/** A fresh array of n elements of dtype (no arena: for small scratch values). */
export function scratch(dtype: DType, n: number): Data {
  return allocData(dtype, n);
}
