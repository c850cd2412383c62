// The attention kernels of the wasm backend (Backend.gemmBatched, attentionSoftmax and
// attentionSoftmaxBackward in src/tensor/backend.ts; the reference is
// src/tensor/attention-kernels.ts): a batch of strided products run inside the module, one
// call for all heads of all sequences, and the masked, scaled softmax four lanes at a time.
import { claim, gemm } from './gemm';
import { vexp } from './vmath';

/**
 * Products first … last−1 of an outer × inner batch (flattened index o·inner + i): C(o,i) =
 * op(A(o,i))·op(B(o,i)) (+C), matrix (o, i) of X at x + (o·xOuter + i·xInner) floats, rows
 * ldx apart. `work` is one thread's gemm scratch.
 */
export function gemmBatched(transA: bool, transB: bool, m: i32, n: i32, k: i32,
  a: usize, lda: i32, aOuter: i32, aInner: i32,
  b: usize, ldb: i32, bOuter: i32, bInner: i32,
  c: usize, ldc: i32, cOuter: i32, cInner: i32,
  inner: i32, first: i32, last: i32, accumulate: bool, work: usize): void {
  for (let q = first; q < last; q++) {
    const o = q / inner, i = q % inner;
    const ap = a + ((<usize>o * aOuter + <usize>i * aInner) << 2);
    const bp = b + ((<usize>o * bOuter + <usize>i * bInner) << 2);
    const cp = c + ((<usize>o * cOuter + <usize>i * cInner) << 2);
    gemm(transA, transB, m, n, k, ap, lda, bp, ldb, cp, ldc, accumulate, work);
  }
}

/**
 * gemmBatched shared by threads: every thread calls this with the same arguments and its own
 * `work`, and takes products one at a time from the counter at `counter` until none are left
 * (each product is computed whole by one thread, so the bits do not depend on the split).
 * Returns how many it ran.
 */
export function gemmBatchedShare(transA: bool, transB: bool, m: i32, n: i32, k: i32,
  a: usize, lda: i32, aOuter: i32, aInner: i32,
  b: usize, ldb: i32, bOuter: i32, bInner: i32,
  c: usize, ldc: i32, cOuter: i32, cInner: i32,
  inner: i32, total: i32, accumulate: bool, work: usize, counter: usize): i32 {
  let taken = 0;
  for (let q = claim(counter, 1); q < total; q = claim(counter, 1)) {
    gemmBatched(transA, transB, m, n, k, a, lda, aOuter, aInner, b, ldb, bOuter, bInner, c, ldc, cOuter, cInner, inner, q, q + 1, accumulate, work);
    taken++;
  }
  return taken;
}

/**
 * Each row of `blocks` [Tq, Tk] score blocks at s becomes softmax(scale·s + bias) over the keys
 * it sees (all, or j ≤ i + qOffset when causal); the others get 0. bias (0: none) is
 * [heads, Tq, Tk], block b taking head b mod heads.
 */
export function attentionSoftmax(s: usize, blocks: i32, Tq: i32, Tk: i32, scale: f32, causal: bool, qOffset: i32, bias: usize, heads: i32): void {
  const vs = f32x4.splat(scale);
  for (let blk = 0; blk < blocks; blk++) {
    const bb = bias ? bias + ((<usize>(blk % heads) * Tq * Tk) << 2) : 0;
    for (let i = 0; i < Tq; i++) {
      const row = s + ((<usize>(blk * Tq + i) * Tk) << 2);
      const brow = bb ? bb + ((<usize>i * Tk) << 2) : 0;
      const seen = causal ? max(0, min(Tk, i + qOffset + 1)) : Tk;
      // scale, bias, and the running maximum
      let vmax = f32x4.splat(-Infinity);
      let j = 0;
      for (; j + 4 <= seen; j += 4) {
        const o = <usize>j << 2;
        let v = f32x4.mul(v128.load(row + o), vs);
        if (brow) v = f32x4.add(v, v128.load(brow + o));
        v128.store(row + o, v);
        vmax = f32x4.max(vmax, v);
      }
      let mx = max(max(f32x4.extract_lane(vmax, 0), f32x4.extract_lane(vmax, 1)), max(f32x4.extract_lane(vmax, 2), f32x4.extract_lane(vmax, 3)));
      for (; j < seen; j++) {
        const o = <usize>j << 2;
        let v = load<f32>(row + o) * scale;
        if (brow) v += load<f32>(brow + o);
        store<f32>(row + o, v);
        mx = max(mx, v);
      }
      // exponentials and their sum (the tail through the same vector exp)
      const vm = f32x4.splat(mx);
      let vsum = f32x4.splat(0);
      j = 0;
      for (; j + 4 <= seen; j += 4) {
        const o = <usize>j << 2;
        const e = vexp(f32x4.sub(v128.load(row + o), vm));
        v128.store(row + o, e);
        vsum = f32x4.add(vsum, e);
      }
      let sum = f32x4.extract_lane(vsum, 0) + f32x4.extract_lane(vsum, 1) + f32x4.extract_lane(vsum, 2) + f32x4.extract_lane(vsum, 3);
      for (; j < seen; j++) {
        const o = <usize>j << 2;
        const e = f32x4.extract_lane(vexp(f32x4.splat(load<f32>(row + o) - mx)), 0);
        store<f32>(row + o, e);
        sum += e;
      }
      const inv = f32x4.splat(<f32>1 / sum);
      j = 0;
      for (; j + 4 <= seen; j += 4) v128.store(row + (<usize>j << 2), f32x4.mul(v128.load(row + (<usize>j << 2)), inv));
      for (; j < seen; j++) store<f32>(row + (<usize>j << 2), load<f32>(row + (<usize>j << 2)) * f32x4.extract_lane(inv, 0));
      if (seen < Tk) memory.fill(row + (<usize>seen << 2), 0, <usize>(Tk - seen) << 2);
    }
  }
}

/** Per row of n: dp ← scale·p ⊙ (dp − ⟨dp, p⟩), in place. */
export function attentionSoftmaxBackward(p: usize, dp: usize, rows: i32, n: i32, scale: f32): void {
  const vs = f32x4.splat(scale);
  for (let r = 0; r < rows; r++) {
    const pr = p + ((<usize>r * n) << 2), dr = dp + ((<usize>r * n) << 2);
    let vdot = f32x4.splat(0);
    let j = 0;
    for (; j + 4 <= n; j += 4) vdot = f32x4.add(vdot, f32x4.mul(v128.load(pr + (<usize>j << 2)), v128.load(dr + (<usize>j << 2))));
    let dot = f32x4.extract_lane(vdot, 0) + f32x4.extract_lane(vdot, 1) + f32x4.extract_lane(vdot, 2) + f32x4.extract_lane(vdot, 3);
    for (; j < n; j++) dot += load<f32>(pr + (<usize>j << 2)) * load<f32>(dr + (<usize>j << 2));
    const vd = f32x4.splat(dot);
    j = 0;
    for (; j + 4 <= n; j += 4) {
      const o = <usize>j << 2;
      v128.store(dr + o, f32x4.mul(vs, f32x4.mul(v128.load(pr + o), f32x4.sub(v128.load(dr + o), vd))));
    }
    for (; j < n; j++) {
      const o = <usize>j << 2;
      store<f32>(dr + o, scale * load<f32>(pr + o) * (load<f32>(dr + o) - dot));
    }
  }
}
