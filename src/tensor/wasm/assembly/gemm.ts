// C (m×n) = op(A)·op(B) (+ C), float32, one thread's share. BLIS-style blocking
// (Goto & van de Geijn, "Anatomy of high-performance matrix multiplication", 2008):
// op(B) is packed into NR-column strips and op(A) into MR-row panels per KC-deep block, and
// the transposes are absorbed by the packing (no transposed copy is ever made); an MR×NR
// register-tiled SIMD micro-kernel does the arithmetic.
import { madd } from './simd';
import { gemvAxpy, gemvDot } from './gemv';

export const MR: i32 = 4;
export const NR: i32 = 8;
export const KC: i32 = 256;
export const MC: i32 = 128;
export const NC: i32 = 1024;

/** Bytes of scratch one thread needs: packed A block, packed B block, one edge tile. */
export function gemmWorkBytes(): i32 {
  return (MC * KC + KC * NC + MR * NR) * 4;
}

/**
 * The micro-kernel: the MR×NR tile at `c` (row stride ldc floats) gets Σ_p pa[p]·pbᵀ[p],
 * plus its old value when `loadC`. pa holds MR floats per step, pb NR floats per step.
 */
// @ts-ignore: decorator
@inline function kernel(kc: i32, pa: usize, pb: usize, c: usize, ldc: i32, loadC: bool): void {
  let c00 = f32x4.splat(0), c01 = f32x4.splat(0);
  let c10 = f32x4.splat(0), c11 = f32x4.splat(0);
  let c20 = f32x4.splat(0), c21 = f32x4.splat(0);
  let c30 = f32x4.splat(0), c31 = f32x4.splat(0);
  for (let p = 0; p < kc; p++) {
    const b0 = v128.load(pb), b1 = v128.load(pb, 16);
    let a = v128.load32_splat(pa);
    c00 = madd(a, b0, c00); c01 = madd(a, b1, c01);
    a = v128.load32_splat(pa, 4);
    c10 = madd(a, b0, c10); c11 = madd(a, b1, c11);
    a = v128.load32_splat(pa, 8);
    c20 = madd(a, b0, c20); c21 = madd(a, b1, c21);
    a = v128.load32_splat(pa, 12);
    c30 = madd(a, b0, c30); c31 = madd(a, b1, c31);
    pa += 16; pb += 32;
  }
  const rs = <usize>ldc << 2;
  if (loadC) {
    c00 = f32x4.add(c00, v128.load(c)); c01 = f32x4.add(c01, v128.load(c, 16));
    c10 = f32x4.add(c10, v128.load(c + rs)); c11 = f32x4.add(c11, v128.load(c + rs, 16));
    c20 = f32x4.add(c20, v128.load(c + 2 * rs)); c21 = f32x4.add(c21, v128.load(c + 2 * rs, 16));
    c30 = f32x4.add(c30, v128.load(c + 3 * rs)); c31 = f32x4.add(c31, v128.load(c + 3 * rs, 16));
  }
  v128.store(c, c00); v128.store(c, c01, 16);
  v128.store(c + rs, c10); v128.store(c + rs, c11, 16);
  v128.store(c + 2 * rs, c20); v128.store(c + 2 * rs, c21, 16);
  v128.store(c + 3 * rs, c30); v128.store(c + 3 * rs, c31, 16);
}

/** Pack op(A)[i0:i0+mc, p0:p0+kc] into MR-row panels, zero-padded: panel[p·MR + ii]. */
export function packA(transA: bool, a: usize, lda: i32, i0: i32, mc: i32, p0: i32, kc: i32, dst: usize): void {
  for (let ir = 0; ir < mc; ir += MR) {
    const mr = min(MR, mc - ir);
    if (transA && mr == MR) {
      // A stored k×m: the MR values of one step are contiguous
      let src = a + ((<usize>p0 * lda + i0 + ir) << 2);
      for (let p = 0; p < kc; p++) { v128.store(dst, v128.load(src)); dst += 16; src += <usize>lda << 2; }
    } else if (!transA && mr == MR) {
      // A stored m×k: four rows read side by side, a 4×4 transpose per 4 steps
      const r0 = a + ((<usize>(i0 + ir) * lda + p0) << 2), rs = <usize>lda << 2;
      let p = 0;
      for (; p + 4 <= kc; p += 4) {
        transpose4(r0 + (<usize>p << 2), rs, dst, 16);
        dst += 64;
      }
      for (; p < kc; p++) {
        const o = <usize>p << 2;
        store<f32>(dst, load<f32>(r0 + o));
        store<f32>(dst, load<f32>(r0 + rs + o), 4);
        store<f32>(dst, load<f32>(r0 + 2 * rs + o), 8);
        store<f32>(dst, load<f32>(r0 + 3 * rs + o), 12);
        dst += 16;
      }
    } else {
      for (let p = 0; p < kc; p++) {
        for (let ii = 0; ii < MR; ii++) {
          let v: f32 = 0;
          if (ii < mr) {
            const i = i0 + ir + ii, q = p0 + p;
            v = transA ? load<f32>(a + ((<usize>q * lda + i) << 2)) : load<f32>(a + ((<usize>i * lda + q) << 2));
          }
          store<f32>(dst, v); dst += 4;
        }
      }
    }
  }
}

/** Pack op(B)[p0:p0+kc, j0:j0+nc] into NR-column strips, zero-padded: strip[p·NR + jj]. */
export function packB(transB: bool, b: usize, ldb: i32, p0: i32, kc: i32, j0: i32, nc: i32, dst: usize): void {
  for (let jr = 0; jr < nc; jr += NR) {
    const nr = min(NR, nc - jr);
    if (!transB && nr == NR) {
      // B stored k×n: the NR values of one step are contiguous
      let src = b + ((<usize>p0 * ldb + j0 + jr) << 2);
      for (let p = 0; p < kc; p++) {
        v128.store(dst, v128.load(src)); v128.store(dst, v128.load(src, 16), 16);
        dst += 32; src += <usize>ldb << 2;
      }
    } else if (transB && nr == NR) {
      // B stored n×k: NR rows read side by side, a 4×4 transpose per 4 steps
      const r0 = b + ((<usize>(j0 + jr) * ldb + p0) << 2), rs = <usize>ldb << 2;
      let p = 0;
      for (; p + 4 <= kc; p += 4) {
        const o = <usize>p << 2;
        transpose4(r0 + o, rs, dst, 32);
        transpose4(r0 + 4 * rs + o, rs, dst + 16, 32);
        dst += 128;
      }
      for (; p < kc; p++) {
        const o = <usize>p << 2;
        for (let jj = 0; jj < NR; jj++) store<f32>(dst + (<usize>jj << 2), load<f32>(r0 + <usize>jj * rs + o));
        dst += 32;
      }
    } else {
      for (let p = 0; p < kc; p++) {
        for (let jj = 0; jj < NR; jj++) {
          let v: f32 = 0;
          if (jj < nr) {
            const j = j0 + jr + jj, q = p0 + p;
            v = transB ? load<f32>(b + ((<usize>j * ldb + q) << 2)) : load<f32>(b + ((<usize>q * ldb + j) << 2));
          }
          store<f32>(dst, v); dst += 4;
        }
      }
    }
  }
}

/** Read a 4×4 block (rows at src + r·rs) and write its transpose (rows at dst + r·ds). */
// @ts-ignore: decorator
@inline function transpose4(src: usize, rs: usize, dst: usize, ds: usize): void {
  const r0 = v128.load(src), r1 = v128.load(src + rs), r2 = v128.load(src + 2 * rs), r3 = v128.load(src + 3 * rs);
  const t0 = v128.shuffle<f32>(r0, r1, 0, 4, 1, 5), t1 = v128.shuffle<f32>(r2, r3, 0, 4, 1, 5);
  const t2 = v128.shuffle<f32>(r0, r1, 2, 6, 3, 7), t3 = v128.shuffle<f32>(r2, r3, 2, 6, 3, 7);
  v128.store(dst, v128.shuffle<f32>(t0, t1, 0, 1, 4, 5));
  v128.store(dst + ds, v128.shuffle<f32>(t0, t1, 2, 3, 6, 7));
  v128.store(dst + 2 * ds, v128.shuffle<f32>(t2, t3, 0, 1, 4, 5));
  v128.store(dst + 3 * ds, v128.shuffle<f32>(t2, t3, 2, 3, 6, 7));
}

/**
 * C[m×n] (row stride ldc) = op(A)·op(B) (+C when accumulate). A is m×k (row stride lda), or
 * k×m when transA; B is k×n (row stride ldb), or n×k when transB. All pointers are byte
 * addresses; `work` is gemmWorkBytes() of scratch owned by the calling thread.
 */
export function gemm(transA: bool, transB: bool, m: i32, n: i32, k: i32, a: usize, lda: i32, b: usize, ldb: i32, c: usize, ldc: i32, accumulate: bool, work: usize): void {
  gemmBody(transA, transB, m, n, k, a, lda, b, ldb, c, ldc, accumulate, work, true, true);
}

/**
 * gemm, where `rowVec`/`colVec` allow the matrix-vector shortcuts for one row / one column of
 * C. A thread's chunk of a larger product passes false for the split side, so that a chunk of
 * one row is computed by the packed kernel like every other row: the bits of C then do not
 * depend on how a product was cut between threads (the same seed gives the same model).
 */
function gemmBody(transA: bool, transB: bool, m: i32, n: i32, k: i32, a: usize, lda: i32, b: usize, ldb: i32, c: usize, ldc: i32, accumulate: bool, work: usize, rowVec: bool, colVec: bool): void {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    if (!accumulate) for (let i = 0; i < m; i++) memory.fill(c + ((<usize>i * ldc) << 2), 0, <usize>n << 2);
    return;
  }
  // One row or one column of C: a matrix-vector product, streamed without packing. The
  // vector (op(A)'s row, op(B)'s column) must be contiguous, which holds for a whole product
  // but not always for a thread's chunk of one.
  if (rowVec && m == 1 && (!transA || lda == 1)) {
    if (transB) gemvDot(n, k, b, ldb, a, c, 1, accumulate);
    else gemvAxpy(k, n, b, ldb, a, c, accumulate);
    return;
  }
  if (colVec && n == 1 && (transB || ldb == 1) && (!transA || ldc == 1)) {
    if (!transA) gemvDot(m, k, a, lda, b, c, ldc, accumulate);
    else gemvAxpy(k, m, a, lda, b, c, accumulate);
    return;
  }
  const pa = work, pb = work + ((<usize>MC * KC) << 2), tile = pb + ((<usize>KC * NC) << 2);
  for (let jc = 0; jc < n; jc += NC) {
    const nc = min(NC, n - jc);
    for (let pc = 0; pc < k; pc += KC) {
      const kc = min(KC, k - pc);
      const loadC = accumulate || pc > 0;
      packB(transB, b, ldb, pc, kc, jc, nc, pb);
      for (let ic = 0; ic < m; ic += MC) {
        const mc = min(MC, m - ic);
        packA(transA, a, lda, ic, mc, pc, kc, pa);
        macroKernel(mc, nc, kc, pa, pb, c + ((<usize>ic * ldc + jc) << 2), ldc, loadC, tile);
      }
    }
  }
}

/**
 * C[mc×nc] (row stride ldc) (+)= packed A (mc rows, MR-row panels) · packed B (nc columns,
 * NR-column strips), both kc deep; partial edge tiles go through `tile` (MR·NR floats).
 */
export function macroKernel(mc: i32, nc: i32, kc: i32, pa: usize, pb: usize, c: usize, ldc: i32, loadC: bool, tile: usize): void {
  for (let jr = 0; jr < nc; jr += NR) {
    const nr = min(NR, nc - jr);
    const bp = pb + ((<usize>jr * kc) << 2);
    for (let ir = 0; ir < mc; ir += MR) {
      const mr = min(MR, mc - ir);
      const ap = pa + ((<usize>ir * kc) << 2);
      const cp = c + ((<usize>ir * ldc + jr) << 2);
      if (mr == MR && nr == NR) {
        kernel(kc, ap, bp, cp, ldc, loadC);
      } else {
        kernel(kc, ap, bp, tile, NR, false);
        for (let ii = 0; ii < mr; ii++) {
          for (let jj = 0; jj < nr; jj++) {
            const dst = cp + ((<usize>ii * ldc + jj) << 2);
            const v = load<f32>(tile + ((<usize>ii * NR + jj) << 2));
            store<f32>(dst, loadC ? load<f32>(dst) + v : v);
          }
        }
      }
    }
  }
}

/** Floats of the shared packed op(B) that gemmShared needs for a k×n product. */
export function packedBFloats(n: i32, k: i32): i32 {
  return k * ((n + NR - 1) / NR) * NR;
}

/** Columns of op(B) per unit of the packing phase of gemmShared. */
const PACK_COLS: i32 = 8 * NR;

/**
 * Phase 1 of a product shared by threads (gemmShared, and the recurrent sequences of
 * ./recurrent-sequence.ts): the threads take groups of PACK_COLS columns of op(B) (k×n) from
 * the counter at `counter` and pack them into `packed` (packedBFloats(n, k) floats: KC-deep
 * blocks, block p at p·npad, of NR-column strips), counting finished groups at counter+8, and
 * return once every group is packed. Returns the groups this thread packed.
 */
export function packShared(transB: bool, n: i32, k: i32, b: usize, ldb: i32, packed: usize, counter: usize): i32 {
  const npad = ((n + NR - 1) / NR) * NR;
  const groups = (n + PACK_COLS - 1) / PACK_COLS;
  let taken = 0;
  for (let j0 = claim(counter, PACK_COLS); j0 < n; j0 = claim(counter, PACK_COLS)) {
    const nc = min(PACK_COLS, n - j0);
    for (let pc = 0; pc < k; pc += KC) {
      const kc = min(KC, k - pc);
      packB(transB, b, ldb, pc, kc, j0, nc, packed + ((<usize>pc * npad + <usize>j0 * kc) << 2));
    }
    if (ASC_FEATURE_THREADS) atomic.add<i32>(counter + 8, 1);
    taken++;
  }
  if (ASC_FEATURE_THREADS) while (atomic.load<i32>(counter + 8) < groups) {} // another thread is still packing
  return taken;
}

/**
 * C[mc×n] (row stride ldc) (+)= A[mc×k] (row stride lda, not transposed) · op(B), op(B) packed
 * whole by packShared: per KC-deep block, A's rows packed into `work`, then the macro-kernel;
 * `accumulate` false overwrites C. The blocks are summed in the order gemm sums them, so the
 * bits of a row do not depend on which rows share its call (mc a multiple of MR, at most MC).
 */
export function productPacked(mc: i32, n: i32, k: i32, a: usize, lda: i32, packed: usize, c: usize, ldc: i32, accumulate: bool, work: usize): void {
  const npad = ((n + NR - 1) / NR) * NR;
  const pa = work, tile = work + ((<usize>MC * KC + <usize>KC * NC) << 2);
  for (let pc = 0; pc < k; pc += KC) {
    const kc = min(KC, k - pc);
    packA(false, a, lda, 0, mc, pc, kc, pa);
    macroKernel(mc, n, kc, pa, packed + ((<usize>pc * npad) << 2), c, ldc, accumulate || pc > 0, tile);
  }
}

/**
 * A product shared by threads that packs op(B) once for all of them (every thread calls
 * this with the same arguments and its own `work`). Phase 1 (packShared): the threads pack
 * op(B) into `packed` together. Phase 2, once every group is packed: they take
 * chunks of `chunk` rows of C (a multiple of MR, at most MC) from counter+4, pack just
 * those rows of op(A) and multiply. A thread that arrives late finds the work done; the
 * bits of C are those of gemm (the same blocks summed in the same order).
 */
export function gemmShared(transA: bool, transB: bool, m: i32, n: i32, k: i32, a: usize, lda: i32, b: usize, ldb: i32, c: usize, ldc: i32, accumulate: bool, work: usize, packed: usize, chunk: i32, counter: usize): i32 {
  const npad = ((n + NR - 1) / NR) * NR;
  let taken = packShared(transB, n, k, b, ldb, packed, counter);
  const pa = work, tile = work + ((<usize>MC * KC + <usize>KC * NC) << 2);
  for (let i0 = claim(counter + 4, chunk); i0 < m; i0 = claim(counter + 4, chunk)) {
    const mc = min(chunk, m - i0);
    const cp = c + ((<usize>i0 * ldc) << 2);
    if (k <= 0 && !accumulate) for (let i = 0; i < mc; i++) memory.fill(cp + ((<usize>i * ldc) << 2), 0, <usize>n << 2);
    for (let pc = 0; pc < k; pc += KC) {
      const kc = min(KC, k - pc);
      packA(transA, a, lda, i0, mc, pc, kc, pa);
      macroKernel(mc, n, kc, pa, packed + ((<usize>pc * npad) << 2), cp, ldc, accumulate || pc > 0, tile);
    }
    taken++;
  }
  return taken;
}

/**
 * Take chunks of C — `chunk` rows, or columns when splitCols — from a shared counter (an
 * i32 at `counter`, atomically advanced) and run gemm on each until none are left. Every
 * thread of a product calls this with the same arguments and its own `work`; a thread that
 * is late (descheduled) just finds fewer chunks left. Returns the number of chunks it ran.
 */
export function gemmChunks(transA: bool, transB: bool, m: i32, n: i32, k: i32, a: usize, lda: i32, b: usize, ldb: i32, c: usize, ldc: i32, accumulate: bool, work: usize, splitCols: bool, chunk: i32, counter: usize): i32 {
  const total = splitCols ? n : m;
  let taken = 0;
  for (let start = claim(counter, chunk); start < total; start = claim(counter, chunk)) {
    const len = min(chunk, total - start);
    const s = <usize>start;
    // the shortcuts on the split side only where the whole product takes them (total == 1)
    if (splitCols) {
      gemmBody(transA, transB, m, len, k, a, lda, transB ? b + ((s * ldb) << 2) : b + (s << 2), ldb, c + (s << 2), ldc, accumulate, work, true, total == 1);
    } else {
      gemmBody(transA, transB, len, n, k, transA ? a + (s << 2) : a + ((s * lda) << 2), lda, b, ldb, c + ((s * ldc) << 2), ldc, accumulate, work, total == 1, true);
    }
    taken++;
  }
  return taken;
}

/** Advance the shared counter by `chunk` and return its old value (atomically where threads exist). */
// @ts-ignore: decorator
@inline export function claim(counter: usize, chunk: i32): i32 {
  if (ASC_FEATURE_THREADS) return atomic.add<i32>(counter, chunk);
  const start = load<i32>(counter);
  store<i32>(counter, start + chunk);
  return start;
}
