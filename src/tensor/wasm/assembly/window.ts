import { EXP, IDENTITY, RELU, SIGMOID, TANH, vapply } from './elementwise';

// Sliding-window kernels: im2col and its adjoint col2im (convolution as one matrix product),
// max pooling with its selection's pullback, and the swap of two leading axes that takes a
// batch's column-matrix product back to [B, O, P]. The same loops as src/tensor/window.ts,
// with contiguous runs moved by memory.copy / SIMD. Float32, byte addresses.

/** n floats from src to dst (rows of an image are short: a call to memory.copy costs more). */
// @ts-ignore: decorator
@inline function copy(dst: usize, src: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) { const o = <usize>i << 2; v128.store(dst + o, v128.load(src + o)); }
  for (; i < n; i++) { const o = <usize>i << 2; store<f32>(dst + o, load<f32>(src + o)); }
}

/** n zero floats at dst. */
// @ts-ignore: decorator
@inline function zero(dst: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(dst + (<usize>i << 2), f32x4.splat(0));
  for (; i < n; i++) store<f32>(dst + (<usize>i << 2), 0);
}

/** The first output column of window column j whose input column ow·sw − pw + j is ≥ 0 (at most Wo). */
// @ts-ignore: decorator
@inline function validLo(Wo: i32, sw: i32, pw: i32, j: i32): i32 {
  const lo = pw - j > 0 ? (pw - j + sw - 1) / sw : 0;
  return lo < Wo ? lo : Wo;
}

/** One past the last output column whose input column lies in [0, W), and not below lo. */
// @ts-ignore: decorator
@inline function validHi(W: i32, Wo: i32, sw: i32, pw: i32, j: i32, lo: i32): i32 {
  let hi = W - 1 + pw - j >= 0 ? (W - 1 + pw - j) / sw + 1 : 0;
  if (hi > Wo) hi = Wo;
  return hi < lo ? lo : hi;
}

/**
 * im2col of `count` samples ([C,H,W] each, contiguous from x): sample s fills columns
 * s·Ho·Wo … of the C·kh·kw rows of col (leading dimension ld floats); 0 outside the image.
 */
export function im2col(C: i32, H: i32, W: i32, kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32, Ho: i32, Wo: i32, x: usize, count: i32, col: usize, ld: i32): void {
  const P = Ho * Wo, S = C * H * W;
  for (let s = 0; s < count; s++) {
    const xs = x + ((<usize>s * S) << 2);
    for (let c = 0; c < C; c++) {
      const plane = xs + ((<usize>c * H * W) << 2);
      for (let i = 0; i < kh; i++) {
        for (let j = 0; j < kw; j++) {
          const lo = validLo(Wo, sw, pw, j), hi = validHi(W, Wo, sw, pw, j, lo);
          let r = col + ((<usize>((c * kh + i) * kw + j) * ld + <usize>s * P) << 2);
          for (let oh = 0; oh < Ho; oh++, r += <usize>Wo << 2) {
            const h = oh * sh - ph + i;
            if (h < 0 || h >= H) { zero(r, Wo); continue; }
            zero(r, lo);
            const src = plane + ((<usize>(h * W - pw + j)) << 2);
            if (sw == 1) copy(r + (<usize>lo << 2), src + (<usize>lo << 2), hi - lo);
            else for (let ow = lo; ow < hi; ow++) store<f32>(r + (<usize>ow << 2), load<f32>(src + ((<usize>ow * sw) << 2)));
            zero(r + (<usize>hi << 2), Wo - hi);
          }
        }
      }
    }
  }
}

/** col2im, the adjoint: dx (count samples, contiguous) += the fold of col (entries in the padding are dropped). */
export function col2im(C: i32, H: i32, W: i32, kh: i32, kw: i32, sh: i32, sw: i32, ph: i32, pw: i32, Ho: i32, Wo: i32, col: usize, ld: i32, count: i32, dx: usize): void {
  const P = Ho * Wo, S = C * H * W;
  for (let s = 0; s < count; s++) {
    const xs = dx + ((<usize>s * S) << 2);
    for (let c = 0; c < C; c++) {
      const plane = xs + ((<usize>c * H * W) << 2);
      for (let i = 0; i < kh; i++) {
        for (let j = 0; j < kw; j++) {
          const lo = validLo(Wo, sw, pw, j), hi = validHi(W, Wo, sw, pw, j, lo);
          let r = col + ((<usize>((c * kh + i) * kw + j) * ld + <usize>s * P) << 2);
          for (let oh = 0; oh < Ho; oh++, r += <usize>Wo << 2) {
            const h = oh * sh - ph + i;
            if (h < 0 || h >= H) continue;
            const dst = plane + ((<usize>(h * W - pw + j)) << 2);
            let ow = lo;
            if (sw == 1) {
              for (; ow + 4 <= hi; ow += 4) {
                const o = <usize>ow << 2;
                v128.store(dst + o, f32x4.add(v128.load(dst + o), v128.load(r + o)));
              }
            }
            for (; ow < hi; ow++) {
              const d = dst + ((<usize>ow * sw) << 2);
              store<f32>(d, load<f32>(d) + load<f32>(r + (<usize>ow << 2)));
            }
          }
        }
      }
    }
  }
}

/**
 * Max over each k×k window (stride s, no padding) of `planes` planes [H,W] at x: y
 * [planes,Ho,Wo]; arg gets the offset (in floats from x) of each maximum — the first on
 * ties; a NaN takes over and stays, as in PyTorch. Branch-free: a value v takes over when
 * !(v <= best) while best is not NaN (random data would mispredict every other branch);
 * 2×2 windows of stride 2 four outputs at a time.
 */
export function maxPool(H: i32, W: i32, k: i32, stride: i32, Ho: i32, Wo: i32, x: usize, planes: i32, y: usize, arg: usize): void {
  let o: usize = 0;
  const fast = k == 2 && stride == 2;
  for (let pl = 0; pl < planes; pl++) {
    const xOff = pl * H * W;
    for (let oh = 0; oh < Ho; oh++) {
      const top = xOff + oh * stride * W;
      let ow = 0;
      if (fast) {
        for (; ow + 4 <= Wo; ow += 4, o += 4) {
          const q = top + 2 * ow, r0 = x + (<usize>q << 2), r1 = r0 + (<usize>W << 2);
          const u0 = v128.load(r0), u1 = v128.load(r0, 16), w0 = v128.load(r1), w1 = v128.load(r1, 16);
          // the window's four values in reading order: a b (row 0), c d (row 1), each for four outputs
          const a = v128.shuffle<f32>(u0, u1, 0, 2, 4, 6), b = v128.shuffle<f32>(u0, u1, 1, 3, 5, 7);
          const c = v128.shuffle<f32>(w0, w1, 0, 2, 4, 6), d = v128.shuffle<f32>(w0, w1, 1, 3, 5, 7);
          const base = f32x4.add(f32x4.splat(<f32>q), f32x4(0, 2, 4, 6));
          let best = a, at = base;
          let t = v128.andnot(f32x4.eq(best, best), f32x4.le(b, best));
          best = v128.bitselect(b, best, t); at = v128.bitselect(f32x4.add(base, f32x4.splat(1)), at, t);
          t = v128.andnot(f32x4.eq(best, best), f32x4.le(c, best));
          best = v128.bitselect(c, best, t); at = v128.bitselect(f32x4.add(base, f32x4.splat(<f32>W)), at, t);
          t = v128.andnot(f32x4.eq(best, best), f32x4.le(d, best));
          best = v128.bitselect(d, best, t); at = v128.bitselect(f32x4.add(base, f32x4.splat(<f32>(W + 1))), at, t);
          v128.store(y + (o << 2), best);
          v128.store(arg + (o << 2), at);
        }
      }
      for (; ow < Wo; ow++, o++) {
        let at = top + ow * stride, best = load<f32>(x + (<usize>at << 2));
        for (let i = 0, row = at; i < k; i++, row += W) {
          for (let q = i == 0 ? row + 1 : row; q < row + k; q++) {
            const v = load<f32>(x + ((<usize>q) << 2));
            const take = !(v <= best) && best == best;
            best = select<f32>(v, best, take);
            at = select<i32>(q, at, take);
          }
        }
        store<f32>(y + (o << 2), best);
        store<f32>(arg + (o << 2), <f32>at);
      }
    }
  }
}

/** dx[arg[i]] += dy[i] for i < n (arg holds float offsets, exact below 2^24). */
export function scatterAdd(dy: usize, arg: usize, n: i32, dx: usize): void {
  for (let i = 0; i < n; i++) {
    const o = <usize>i << 2, d = dx + ((<usize><i32>load<f32>(arg + o)) << 2);
    store<f32>(d, load<f32>(d) + load<f32>(dy + o));
  }
}

/** y[b,a,:] = f(x[a,b,:] (+ bias[a] when bias ≠ 0)) for x [A,B,P], f named by its op code (elementwise.ts). */
export function swapAxes(x: usize, A: i32, B: i32, P: i32, y: usize, bias: usize, op: i32): void {
  switch (op) {
    case RELU: swapLoop(RELU, x, A, B, P, y, bias); break;
    case SIGMOID: swapLoop(SIGMOID, x, A, B, P, y, bias); break;
    case TANH: swapLoop(TANH, x, A, B, P, y, bias); break;
    case EXP: swapLoop(EXP, x, A, B, P, y, bias); break;
    case IDENTITY: swapLoop(IDENTITY, x, A, B, P, y, bias); break;
    default: unreachable();
  }
}

// @ts-ignore: decorator
@inline function swapLoop(op: i32, x: usize, A: i32, B: i32, P: i32, y: usize, bias: usize): void {
  const p4 = P & ~3;
  for (let a = 0; a < A; a++) {
    const bv: f32 = bias ? load<f32>(bias + (<usize>a << 2)) : 0, bs = f32x4.splat(bv);
    for (let b = 0; b < B; b++) {
      const src = x + ((<usize>(a * B + b) * P) << 2), dst = y + ((<usize>(b * A + a) * P) << 2);
      if (bias == 0 && op == IDENTITY) { memory.copy(dst, src, <usize>P << 2); continue; }
      let p = 0;
      for (; p < p4; p += 4) {
        const o = <usize>p << 2;
        let v = v128.load(src + o);
        if (bias) v = f32x4.add(v, bs);
        v128.store(dst + o, vapply(op, v));
      }
      for (; p < P; p++) {
        const o = <usize>p << 2;
        let v = load<f32>(src + o);
        if (bias) v += bv;
        store<f32>(dst + o, f32x4.extract_lane(vapply(op, f32x4.splat(v)), 0));
      }
    }
  }
}
