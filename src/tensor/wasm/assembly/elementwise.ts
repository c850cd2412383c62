// Elementwise kernels, fused bias + activation, and reductions (Backend in
// src/tensor/backend.ts). Four lanes at a time, a scalar loop for the tail; the scalar
// path runs the same formulas on one lane so every element gets the same rounding.
import { vexp, vsigmoid, vtanh } from './vmath';

// op codes, in the order of OPS in src/tensor/wasm-backend.ts
export const IDENTITY = 0, SIGMOID = 1, TANH = 2, RELU = 3, GELU = 4, SOFTPLUS = 5, EXP = 6, NEG = 7, SQUARE = 8;
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
@inline export function vapply(op: i32, x: v128): v128 {
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

// The loops below take the op as an argument of an @inline function called once per op
// code from a switch: after inlining the op is a constant, so each op gets its own loop
// with no dispatch inside it.

/** out[i] = f(x[i]) for n floats; out may equal x. */
export function unary(op: i32, x: usize, out: usize, n: i32): void {
  switch (op) {
    case SIGMOID: unaryLoop(SIGMOID, x, out, n); break;
    case TANH: unaryLoop(TANH, x, out, n); break;
    case RELU: unaryLoop(RELU, x, out, n); break;
    case GELU: unaryLoop(GELU, x, out, n); break;
    case SOFTPLUS: unaryLoop(SOFTPLUS, x, out, n); break;
    case EXP: unaryLoop(EXP, x, out, n); break;
    case NEG: unaryLoop(NEG, x, out, n); break;
    case SQUARE: unaryLoop(SQUARE, x, out, n); break;
    default: unaryLoop(IDENTITY, x, out, n);
  }
}

// @ts-ignore: decorator
@inline function unaryLoop(op: i32, x: usize, out: usize, n: i32): void {
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
  switch (op) {
    case SIGMOID: backwardLoop(SIGMOID, x, y, dy, dx, n, accumulate); break;
    case TANH: backwardLoop(TANH, x, y, dy, dx, n, accumulate); break;
    case RELU: backwardLoop(RELU, x, y, dy, dx, n, accumulate); break;
    case GELU: backwardLoop(GELU, x, y, dy, dx, n, accumulate); break;
    case SOFTPLUS: backwardLoop(SOFTPLUS, x, y, dy, dx, n, accumulate); break;
    case EXP: backwardLoop(EXP, x, y, dy, dx, n, accumulate); break;
    case NEG: backwardLoop(NEG, x, y, dy, dx, n, accumulate); break;
    case SQUARE: backwardLoop(SQUARE, x, y, dy, dx, n, accumulate); break;
    default: backwardLoop(IDENTITY, x, y, dy, dx, n, accumulate);
  }
}

// @ts-ignore: decorator
@inline function backwardLoop(op: i32, x: usize, y: usize, dy: usize, dx: usize, n: i32, accumulate: bool): void {
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
  switch (op) {
    case SIGMOID: addRowLoop(SIGMOID, x, v, rows, cols, out); break;
    case TANH: addRowLoop(TANH, x, v, rows, cols, out); break;
    case RELU: addRowLoop(RELU, x, v, rows, cols, out); break;
    case GELU: addRowLoop(GELU, x, v, rows, cols, out); break;
    case SOFTPLUS: addRowLoop(SOFTPLUS, x, v, rows, cols, out); break;
    case EXP: addRowLoop(EXP, x, v, rows, cols, out); break;
    case NEG: addRowLoop(NEG, x, v, rows, cols, out); break;
    case SQUARE: addRowLoop(SQUARE, x, v, rows, cols, out); break;
    default: addRowLoop(IDENTITY, x, v, rows, cols, out);
  }
}

// @ts-ignore: decorator
@inline function addRowLoop(op: i32, x: usize, v: usize, rows: i32, cols: i32, out: usize): void {
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

/**
 * One Adam step on n parameters in place (PyTorch's arithmetic): p ← p·shrink,
 * g′ = g + l2·p, m ← b1·m + a1·g′, v ← b2·v + a2·g′², p ← p − step·m/(√v + epsHat), where
 * a1 = 1 − b1 and a2 = 1 − b2 come from the caller (in float64: 1 − f32(0.999) is 1.3e-5 off).
 */
export function adam(p: usize, g: usize, m: usize, v: usize, n: i32, b1: f32, a1: f32, b2: f32, a2: f32, step: f32, epsHat: f32, l2: f32, shrink: f32): void {
  const B1 = f32x4.splat(b1), B2 = f32x4.splat(b2), A1 = f32x4.splat(a1), A2 = f32x4.splat(a2);
  const S = f32x4.splat(step), E = f32x4.splat(epsHat), L2 = f32x4.splat(l2), K = f32x4.splat(shrink);
  const n4 = n & ~3;
  let i = 0;
  for (; i < n4; i += 4) {
    const o = <usize>i << 2;
    let pj = v128.load(p + o), gj = v128.load(g + o);
    if (shrink != 1) pj = f32x4.mul(pj, K);
    if (l2 != 0) gj = f32x4.add(gj, f32x4.mul(L2, pj));
    const mj = f32x4.add(f32x4.mul(B1, v128.load(m + o)), f32x4.mul(A1, gj));
    const vj = f32x4.add(f32x4.mul(B2, v128.load(v + o)), f32x4.mul(f32x4.mul(A2, gj), gj));
    v128.store(m + o, mj);
    v128.store(v + o, vj);
    v128.store(p + o, f32x4.sub(pj, f32x4.div(f32x4.mul(S, mj), f32x4.add(f32x4.sqrt(vj), E))));
  }
  for (; i < n; i++) {
    const o = <usize>i << 2;
    let pj = load<f32>(p + o), gj = load<f32>(g + o);
    if (shrink != 1) pj *= shrink;
    if (l2 != 0) gj += l2 * pj;
    const mj = b1 * load<f32>(m + o) + a1 * gj;
    const vj = b2 * load<f32>(v + o) + a2 * gj * gj;
    store<f32>(m + o, mj);
    store<f32>(v + o, vj);
    store<f32>(p + o, pj - (step * mj) / (Mathf.sqrt(vj) + epsHat));
  }
}
