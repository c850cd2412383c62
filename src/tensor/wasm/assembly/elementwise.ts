// Elementwise kernels, fused bias + activation, and reductions (Backend in
// src/tensor/backend.ts). Four lanes at a time, a scalar loop for the tail; the scalar
// path runs the same formulas on one lane so every element gets the same rounding.
import { vexp, vsigmoid, vtanh } from './vmath';

// op codes, in the order of OPS in src/tensor/wasm-backend.ts
const IDENTITY = 0, SIGMOID = 1, TANH = 2, RELU = 3, GELU = 4, SOFTPLUS = 5, EXP = 6, NEG = 7, SQUARE = 8;
const SQRT_2_OVER_PI: f32 = 0.7978845608028654;
const GELU_C: f32 = 0.044715;

// @ts-ignore: decorator
@inline function vsoftplus(x: v128): v128 {
  // max(x,0) + log1p(e^{−|x|}), the log1p one lane at a time (softplus is rare)
  const t = vexp(f32x4.neg(f32x4.abs(x)));
  const l = f32x4(
    Mathf.log1p(f32x4.extract_lane(t, 0)), Mathf.log1p(f32x4.extract_lane(t, 1)),
    Mathf.log1p(f32x4.extract_lane(t, 2)), Mathf.log1p(f32x4.extract_lane(t, 3)));
  return f32x4.add(f32x4.max(x, f32x4.splat(0)), l);
}

// @ts-ignore: decorator
@inline function geluInner(x: v128): v128 {
  return f32x4.mul(f32x4.splat(SQRT_2_OVER_PI), f32x4.add(x, f32x4.mul(f32x4.splat(GELU_C), f32x4.mul(x, f32x4.mul(x, x)))));
}

/** f(x) per lane, f named by its op code. */
// @ts-ignore: decorator
@inline function vapply(op: i32, x: v128): v128 {
  switch (op) {
    case SIGMOID: return vsigmoid(x);
    case TANH: return vtanh(x);
    case RELU: return f32x4.max(x, f32x4.splat(0));
    case GELU: return f32x4.mul(f32x4.mul(f32x4.splat(0.5), x), f32x4.add(f32x4.splat(1), vtanh(geluInner(x))));
    case SOFTPLUS: return vsoftplus(x);
    case EXP: return vexp(x);
    case NEG: return f32x4.neg(x);
    case SQUARE: return f32x4.mul(x, x);
    default: return x;
  }
}

/** f′(x) per lane, given x and y = f(x). */
// @ts-ignore: decorator
@inline function vderivative(op: i32, x: v128, y: v128): v128 {
  const one = f32x4.splat(1);
  switch (op) {
    case SIGMOID: return f32x4.mul(y, f32x4.sub(one, y));
    case TANH: return f32x4.sub(one, f32x4.mul(y, y));
    case RELU: return v128.and(f32x4.gt(x, f32x4.splat(0)), one);
    case GELU: {
      const t = vtanh(geluInner(x));
      const du = f32x4.mul(f32x4.splat(SQRT_2_OVER_PI), f32x4.add(one, f32x4.mul(f32x4.splat(3 * GELU_C), f32x4.mul(x, x))));
      const half = f32x4.splat(0.5);
      return f32x4.add(f32x4.mul(half, f32x4.add(one, t)), f32x4.mul(f32x4.mul(f32x4.mul(half, x), f32x4.sub(one, f32x4.mul(t, t))), du));
    }
    case SOFTPLUS: return vsigmoid(x);
    case EXP: return y;
    case NEG: return f32x4.splat(-1);
    case SQUARE: return f32x4.add(x, x);
    default: return one;
  }
}

/** out[i] = f(x[i]) for n floats; out may equal x. */
export function unary(op: i32, x: usize, out: usize, n: i32): void {
  const n4 = n & ~3;
  let i = 0;
  for (; i < n4; i += 4) { const o = <usize>i << 2; v128.store(out + o, vapply(op, v128.load(x + o))); }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    store<f32>(out + o, f32x4.extract_lane(vapply(op, f32x4.splat(load<f32>(x + o))), 0));
  }
}

/** dx[i] (+)= dy[i]·f′(x[i]) for n floats. */
export function unaryBackward(op: i32, x: usize, y: usize, dy: usize, dx: usize, n: i32, accumulate: bool): void {
  const n4 = n & ~3;
  let i = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    let g = f32x4.mul(v128.load(dy + o), vderivative(op, v128.load(x + o), v128.load(y + o)));
    if (accumulate) g = f32x4.add(g, v128.load(dx + o));
    v128.store(dx + o, g);
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    let g = load<f32>(dy + o) * f32x4.extract_lane(vderivative(op, f32x4.splat(load<f32>(x + o)), f32x4.splat(load<f32>(y + o))), 0);
    if (accumulate) g += load<f32>(dx + o);
    store<f32>(dx + o, g);
  }
}

/** out (rows×cols) = f(x + v) with v broadcast over rows: bias and activation in one pass. */
export function addRowVector(x: usize, v: usize, rows: i32, cols: i32, out: usize, op: i32): void {
  const c4 = cols & ~3;
  for (let r = 0; r < rows; r++) {
    const row = (<usize>r * cols) << 2;
    let j = 0;
    for (; j < c4; j += 4) {
      const o = <usize>j << 2;
      v128.store(out + row + o, vapply(op, f32x4.add(v128.load(x + row + o), v128.load(v + o))));
    }
    for (; j < cols; j++) {
      const o = <usize>j << 2;
      store<f32>(out + row + o, f32x4.extract_lane(vapply(op, f32x4.splat(load<f32>(x + row + o) + load<f32>(v + o))), 0));
    }
  }
}

/** out (cols) (+)= Σ_rows x. */
export function sumRows(x: usize, rows: i32, cols: i32, out: usize, accumulate: bool): void {
  if (!accumulate) memory.fill(out, 0, <usize>cols << 2);
  const c4 = cols & ~3;
  for (let r = 0; r < rows; r++) {
    const row = x + ((<usize>r * cols) << 2);
    let j = 0;
    for (; j < c4; j += 4) { const o = <usize>j << 2; v128.store(out + o, f32x4.add(v128.load(out + o), v128.load(row + o))); }
    for (; j < cols; j++) { const o = <usize>j << 2; store<f32>(out + o, load<f32>(out + o) + load<f32>(row + o)); }
  }
}

/** y += alpha·x for n floats. */
export function axpy(alpha: f32, x: usize, y: usize, n: i32): void {
  const a = f32x4.splat(alpha), n4 = n & ~3;
  let i = 0;
  for (; i < n4; i += 4) { const o = <usize>i << 2; v128.store(y + o, f32x4.add(v128.load(y + o), f32x4.mul(a, v128.load(x + o)))); }
  for (; i < n; i++) { const o = <usize>i << 2; store<f32>(y + o, load<f32>(y + o) + alpha * load<f32>(x + o)); }
}

/** Whether none of the n floats at x is NaN or ±∞ (v − v is 0 exactly for finite v). */
export function allFinite(x: usize, n: i32): bool {
  const n4 = n & ~3;
  let ok = i32x4.splat(-1);
  let i = 0;
  for (; i < n4; i += 4) {
    const v = v128.load(x + (<usize>i << 2)), d = f32x4.sub(v, v);
    ok = v128.and(ok, f32x4.eq(d, d));
  }
  let fine = v128.all_true<i32>(ok);
  for (; i < n; i++) { const v = load<f32>(x + (<usize>i << 2)); fine = fine && v - v == 0; }
  return fine;
}
