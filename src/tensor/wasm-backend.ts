import { ShapeError } from '../errors.js';
import type { AdamStep, Backend, MatrixBatch, SwapOp, UnaryOp } from './backend.js';
import { registerBackend } from './registry.js';
import { jsBackend } from './js-backend.js';
import { wasmRecurrentKernels } from './wasm-recurrent.js';
import { sequenceKernels } from './recurrent-kernels.js';
import type { Data } from './tensor.js';
import type { Window } from './window.js';
import { CTRL_BASE, KernelInstance, MAX_THREADS, relaxedSimdSupported, sharedMemorySupported } from './wasm/instance.js';
import type { SimdFlavour } from './wasm/instance.js';
import { BATCH, coreCount, ThreadPool } from './wasm/threads.js';
import type { SharedBatch, SharedGemm, SharedSequence } from './wasm/threads.js';

/** Op codes of the AssemblyScript kernels (src/tensor/wasm/assembly/elementwise.ts), by position. */
const OPS: readonly UnaryOp[] = ['identity', 'sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'exp', 'neg', 'square'];
const OP_CODE = new Map(OPS.map((op, i) => [op, i]));
/** Ops whose derivative reads x, and those whose derivative reads y = f(x) (the others read neither). */
const NEEDS_X = new Set<UnaryOp>(['relu', 'gelu', 'softplus', 'square']);
const NEEDS_Y = new Set<UnaryOp>(['sigmoid', 'tanh', 'exp']);
/** Register tile and row block of the kernels (src/tensor/wasm/assembly/gemm.ts): thread shares are multiples of the tile. */
const MR = 4,
  NR = 8,
  MC = 128;

export interface WasmBackendOptions {
  /** 'auto' (default) takes relaxed SIMD where the runtime validates it, else plain SIMD. */
  simd?: 'auto' | SimdFlavour;
  /** Threads for large products, the calling thread included. Default: the cores the runtime reports (coreCount) where shared memory exists, else 1. */
  threads?: number;
  /**
   * Use a shared memory (default: where the runtime has one — Node, or a cross-origin
   * isolated page). Without one there are no worker threads and no resident arrays
   * (Backend.alloc): every call copies its arguments in and out.
   */
  sharedMemory?: boolean;
  /** Backend name (default 'wasm'). */
  name?: string;
  /**
   * Products with m·n·k below this, and elementwise calls on fewer elements than
   * `minElements`, go to the reference backend: for them copying into wasm memory costs
   * more than the arithmetic. Set both to 0 to run everything in wasm (the tests do).
   */
  minGemmVolume?: number;
  minElements?: number;
  /** Products with m·n·k at or above this are split over the threads. */
  minParallelVolume?: number;
}

/** A Backend running AssemblyScript SIMD kernels, plus what it was built with. */
export interface WasmBackend extends Backend {
  readonly simd: SimdFlavour;
  /** Threads in use, the calling thread included (1 where no worker could start, or after dispose). */
  readonly threads: number;
  /** Stop the worker threads (the backend keeps working on one thread). */
  dispose(): void;
  /** Products shared between threads so far, their chunks, and how many of those the workers ran. */
  threadStats(): { sharedProducts: number; chunks: number; chunksByWorkers: number };
  /** Bytes of wasm memory now (it grows, never shrinks), and how many of them resident arrays (alloc) hold. */
  memoryStats(): { memoryBytes: number; residentBytes: number };
}

// From the per-call costs of small kernels on js and wasm (bench/gemm-wasm.ts, docs/backends.md).
const DEFAULT_MIN_GEMM_VOLUME = 128;
const DEFAULT_MIN_ELEMENTS = 128;
const DEFAULT_MIN_PARALLEL_VOLUME = 1 << 18;

/** Absent, or an array the kernels take (they are float32 only). */
function float32OrAbsent(x: Data | undefined): boolean {
  return x === undefined || x instanceof Float32Array;
}

/** Whether the products of a batch write every element of C's array (then it need not be copied in first). */
function coversAll(c: MatrixBatch, m: number, n: number, count: readonly [number, number]): boolean {
  return c.ld === n && c.inner === m * n && c.outer === count[1] * m * n && c.data.length === count[0] * count[1] * m * n;
}

/**
 * Build a wasm backend (not registered, not selected). Float64 arguments are handed to the
 * reference backend: the kernels are float32 only.
 */
export async function createWasmBackend(options: WasmBackendOptions = {}): Promise<WasmBackend> {
  const flavour: SimdFlavour = options.simd === 'plain' || (options.simd !== 'relaxed' && !relaxedSimdSupported()) ? 'plain' : 'relaxed';
  const wanted = Math.min(MAX_THREADS, Math.max(1, Math.floor(options.threads ?? (await coreCount()))));
  // shared memory where it exists, for the threads and for resident arrays (views of a
  // shared memory stay valid when it grows)
  const shared = options.sharedMemory !== false && sharedMemorySupported();
  const threads = shared ? wanted : 1;
  const inst = await KernelInstance.create(flavour, shared, threads);
  let pool: ThreadPool | undefined;
  if (threads > 1) {
    // no workers here (e.g. a page without Worker): the backend stays on one thread
    pool = await ThreadPool.start(inst, threads - 1).catch(() => undefined);
  }
  const k = inst.exports;
  const stats = { sharedProducts: 0, chunks: 0, chunksByWorkers: 0 };
  const minGemm = options.minGemmVolume ?? DEFAULT_MIN_GEMM_VOLUME;
  const minElements = options.minElements ?? DEFAULT_MIN_ELEMENTS;
  const minParallel = options.minParallelVolume ?? DEFAULT_MIN_PARALLEL_VOLUME;

  /**
   * How the threads share a product. With enough rows (and more than one column), op(B) is
   * packed once by all of them and C split into chunks of rows, about eight per thread
   * (gemmShared). Otherwise C's longer side is split into about four chunks per thread, each
   * repacking the other operand (gemmChunks). Chunks are whole register tiles and not
   * thinner than 16.
   */
  function chunking(m: number, n: number): { packB: boolean; splitCols: boolean; chunk: number } {
    if (m >= 16 * threads && n > 1) {
      return { packB: true, splitCols: false, chunk: Math.min(MC, Math.ceil(Math.max(Math.ceil(m / (8 * threads)), 16) / MR) * MR) };
    }
    const splitCols = n > m,
      total = splitCols ? n : m,
      unit = splitCols ? NR : MR;
    const chunk = Math.ceil(Math.max(Math.ceil(total / (4 * threads)), 16) / unit) * unit;
    return { packB: false, splitCols, chunk };
  }

  /**
   * The one rule for handing a call to the reference backend instead: a call runs in wasm only
   * when it is big enough for copying into wasm memory to pay (`paysOff`, the kernel's own size
   * test), all its arrays are float32 (the kernels have no float64; an absent optional array
   * passes) and wasm memory can make `room` floats of argument space (asked last: it may
   * grow the memory). Past it, input/output/collect may take the arrays as float32. A fixed
   * arity and one call site per kernel keep it inlinable: small models pay nothing for it.
   */
  function wasmTakes(paysOff: boolean, room: number, a: Data, b?: Data, c?: Data, d?: Data): boolean {
    return paysOff && float32OrAbsent(a) && float32OrAbsent(b) && float32OrAbsent(c) && float32OrAbsent(d) && inst.begin(room);
  }

  // The dispatch is kept apart from the work so that it stays small enough for the JIT to
  // inline into callers: small models then pay nothing for it.
  function gemm(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    kk: number,
    a: Data,
    b: Data,
    c: Data,
    accumulate: boolean,
    bias?: Data,
    op: UnaryOp = 'identity',
  ): void {
    product(transA, transB, m, n, kk, a, b, c, accumulate);
    if (bias) addRowVector(c, bias, m, n, c, op);
  }

  function product(transA: boolean, transB: boolean, m: number, n: number, kk: number, a: Data, b: Data, c: Data, accumulate: boolean): void {
    if (!wasmTakes(m * n * kk >= minGemm && m > 0 && n > 0, m * kk + 2 * kk * (n + NR) + m * n, a, b, c))
      return jsBackend.gemm(transA, transB, m, n, kk, a, b, c, accumulate);
    gemmInWasm(transA, transB, m, n, kk, a, b, c, accumulate);
  }

  /** Where x is in wasm memory: its own address if it lives there, else a copy's (in the argument region). */
  function input(x: Data, n: number): number {
    fits(x, n, 'read');
    const p = inst.addressOf(x as Float32Array);
    return p >= 0 ? p : inst.put(x as Float32Array, n);
  }

  /** Where the kernel writes `out`: in place if it lives in wasm memory, else in the argument region (a copy when `accumulate`). */
  function output(out: Data, n: number, accumulate: boolean): number {
    fits(out, n, 'written');
    const p = inst.addressOf(out as Float32Array);
    return p >= 0 ? p : accumulate ? inst.put(out as Float32Array, n) : inst.reserve(n);
  }

  /**
   * The bounds check at the boundary: every array a kernel touches goes through `input` or
   * `output` with the count the kernel will read or write, so a malformed call (an optimiser
   * slot shorter than its parameter) is refused instead of running over into the arrays that
   * share wasm memory with it.
   */
  function fits(x: Data, n: number, how: 'read' | 'written'): void {
    if (!(x.length >= n)) throw new ShapeError(`wasm kernel: an operand holds ${x.length} values where ${n} are ${how}`);
  }

  /** Copy a result out of the argument region, unless the kernel wrote it in place. */
  function collect(p: number, n: number, out: Data): void {
    if (p !== inst.addressOf(out as Float32Array)) inst.get(p, n, out as Float32Array);
  }

  /** gemm once wasmTakes has made room for A, B and C. */
  function gemmInWasm(transA: boolean, transB: boolean, m: number, n: number, kk: number, a: Data, b: Data, c: Data, accumulate: boolean): void {
    const aP = input(a, m * kk);
    const bP = input(b, kk * n);
    const cP = output(c, m * n, accumulate);
    const lda = transA ? m : kk,
      ldb = transB ? kk : n;
    if (pool && m * n * kk >= minParallel) {
      const { packB, splitCols, chunk } = chunking(m, n);
      const packed = packB ? inst.reserve(k.packedBFloats(n, kk)) : 0;
      const job: SharedGemm = [transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, splitCols, chunk, pool.counter, packed];
      pool.post(job);
      const mine = packB
        ? k.gemmShared(transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, inst.work(0), packed, chunk, pool.counter)
        : k.gemmChunks(transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, inst.work(0), splitCols, chunk, pool.counter);
      const theirs = pool.finish();
      stats.sharedProducts++;
      stats.chunks += mine + theirs;
      stats.chunksByWorkers += theirs;
    } else {
      k.gemm(transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, inst.work(0));
    }
    collect(cP, m * n, c);
  }

  /** A call the threads share through the counters (WasmCalls.share in ./wasm-recurrent.ts). */
  function share(parallel: boolean, kind: number, job: (counter: number) => SharedSequence, mine: (counter: number, work: number) => number): void {
    if (!pool || !parallel) {
      // the counters of a call on one thread: the words at CTRL_BASE, unused between shared calls
      inst.clearCounters();
      mine(CTRL_BASE, inst.work(0));
      return;
    }
    pool.post(job(pool.counter), kind);
    const own = mine(pool.counter, inst.work(0));
    const theirs = pool.finish();
    stats.sharedProducts++;
    stats.chunks += own + theirs;
    stats.chunksByWorkers += theirs;
  }

  /** All products of a batch in one call (the heads of an attention), the operands where they are (resident) or copied in whole. */
  function gemmBatched(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    kk: number,
    a: MatrixBatch,
    b: MatrixBatch,
    c: MatrixBatch,
    count: readonly [number, number],
    accumulate: boolean,
  ): void {
    const total = count[0] * count[1],
      A = a.data,
      B = b.data,
      C = c.data;
    if (!wasmTakes(m * n * kk * total >= minGemm && m > 0 && n > 0 && total > 0, A.length + B.length + C.length, A, B, C)) {
      return jsBackend.gemmBatched(transA, transB, m, n, kk, a, b, c, count, accumulate);
    }
    const aP = input(A, A.length),
      bP = input(B, B.length),
      cP = output(C, C.length, accumulate || !coversAll(c, m, n, count));
    if (pool && total > 1 && m * n * kk * total >= minParallel) {
      // whole products handed out one at a time: the bits do not depend on which thread ran which
      const job: SharedBatch = [
        transA,
        transB,
        m,
        n,
        kk,
        aP,
        a.ld,
        a.outer,
        a.inner,
        bP,
        b.ld,
        b.outer,
        b.inner,
        cP,
        c.ld,
        c.outer,
        c.inner,
        count[1],
        total,
        accumulate,
        pool.counter,
      ];
      pool.post(job, BATCH);
      const mine = k.gemmBatchedShare(
        transA,
        transB,
        m,
        n,
        kk,
        aP,
        a.ld,
        a.outer,
        a.inner,
        bP,
        b.ld,
        b.outer,
        b.inner,
        cP,
        c.ld,
        c.outer,
        c.inner,
        count[1],
        total,
        accumulate,
        inst.work(0),
        pool.counter,
      );
      const theirs = pool.finish();
      stats.sharedProducts++;
      stats.chunks += mine + theirs;
      stats.chunksByWorkers += theirs;
    } else {
      k.gemmBatched(
        transA,
        transB,
        m,
        n,
        kk,
        aP,
        a.ld,
        a.outer,
        a.inner,
        bP,
        b.ld,
        b.outer,
        b.inner,
        cP,
        c.ld,
        c.outer,
        c.inner,
        count[1],
        0,
        total,
        accumulate,
        inst.work(0),
      );
    }
    collect(cP, C.length, C);
  }

  function attentionSoftmax(s: Data, blocks: number, Tq: number, Tk: number, scale: number, causal: boolean, qOffset: number, bias?: Data, heads = 1): void {
    const n = blocks * Tq * Tk;
    if (!wasmTakes(n >= minElements, n + (bias?.length ?? 0), s, bias))
      return jsBackend.attentionSoftmax(s, blocks, Tq, Tk, scale, causal, qOffset, bias, heads);
    const sP = output(s, n, true),
      bP = bias ? input(bias, bias.length) : 0;
    k.attentionSoftmax(sP, blocks, Tq, Tk, scale, causal, qOffset, bP, heads);
    collect(sP, n, s);
  }

  function attentionSoftmaxBackward(p: Data, dp: Data, rows: number, n: number, scale: number): void {
    const size = rows * n;
    if (!wasmTakes(size >= minElements, 2 * size, p, dp)) return jsBackend.attentionSoftmaxBackward(p, dp, rows, n, scale);
    const pP = input(p, size),
      dP = output(dp, size, true);
    k.attentionSoftmaxBackward(pP, dP, rows, n, scale);
    collect(dP, size, dp);
  }

  function layerNorm(x: Data, rows: number, d: number, g: Data, b: Data | undefined, eps: number, centre: boolean, y: Data, xhat: Data, r: Data): void {
    const n = rows * d;
    if (!wasmTakes(n >= minElements && float32OrAbsent(b) && float32OrAbsent(r), 3 * n + 2 * d + rows, x, g, y, xhat))
      return jsBackend.layerNorm(x, rows, d, g, b, eps, centre, y, xhat, r);
    const xP = input(x, n),
      gP = input(g, d),
      bP = b ? input(b, d) : 0;
    const yP = output(y, n, false),
      hP = output(xhat, n, false),
      rP = output(r, rows, false);
    k.layerNorm(xP, rows, d, gP, bP, eps, centre, yP, hP, rP);
    collect(yP, n, y);
    collect(hP, n, xhat);
    collect(rP, rows, r);
  }

  function layerNormBackward(
    dy: Data,
    xhat: Data,
    r: Data,
    rows: number,
    d: number,
    g: Data,
    centre: boolean,
    dx: Data | undefined,
    dg: Data | undefined,
    db: Data | undefined,
  ): void {
    const n = rows * d;
    if (!wasmTakes(n >= minElements && float32OrAbsent(dx) && float32OrAbsent(dg) && float32OrAbsent(db), 3 * n + 3 * d + rows, dy, xhat, r, g)) {
      return jsBackend.layerNormBackward(dy, xhat, r, rows, d, g, centre, dx, dg, db);
    }
    const dyP = input(dy, n),
      hP = input(xhat, n),
      rP = input(r, rows),
      gP = input(g, d);
    const dxP = dx ? output(dx, n, false) : 0,
      dgP = dg ? output(dg, d, true) : 0,
      dbP = db ? output(db, d, true) : 0;
    k.layerNormBackward(dyP, hP, rP, rows, d, gP, centre, dxP, dgP, dbP);
    if (dx) collect(dxP, n, dx);
    if (dg) collect(dgP, d, dg);
    if (db) collect(dbP, d, db);
  }

  function unary(op: UnaryOp, x: Data, out: Data): void {
    const n = x.length;
    if (!wasmTakes(n >= minElements && op !== 'identity', 2 * n, x, out)) return jsBackend.unary(op, x, out);
    const xP = input(x, n),
      outP = output(out, n, false);
    k.unary(OP_CODE.get(op)!, xP, outP, n);
    collect(outP, n, out);
  }

  function unaryBackward(op: UnaryOp, x: Data, y: Data, dy: Data, dx: Data, accumulate: boolean): void {
    const n = dy.length;
    if (!wasmTakes(n >= minElements, 4 * n, x, y, dy, dx)) return jsBackend.unaryBackward(op, x, y, dy, dx, accumulate);
    const dyP = input(dy, n);
    const xP = NEEDS_X.has(op) ? input(x, n) : dyP;
    const yP = NEEDS_Y.has(op) ? input(y, n) : dyP;
    const dxP = output(dx, n, accumulate);
    k.unaryBackward(OP_CODE.get(op)!, xP, yP, dyP, dxP, n, accumulate);
    collect(dxP, n, dx);
  }

  function addRowVector(x: Data, v: Data, rows: number, cols: number, out: Data, op: UnaryOp): void {
    const n = rows * cols;
    if (!wasmTakes(n >= minElements, 2 * n + cols, x, v, out)) return jsBackend.addRowVector(x, v, rows, cols, out, op);
    const xP = input(x, n),
      vP = input(v, cols),
      outP = output(out, n, false);
    k.addRowVector(xP, vP, rows, cols, outP, OP_CODE.get(op)!);
    collect(outP, n, out);
  }

  function sumRows(x: Data, rows: number, cols: number, out: Data, accumulate: boolean): void {
    const n = rows * cols;
    if (!wasmTakes(n >= minElements, n + cols, x, out)) return jsBackend.sumRows(x, rows, cols, out, accumulate);
    const xP = input(x, n),
      oP = output(out, cols, accumulate);
    k.sumRows(xP, rows, cols, oP, accumulate);
    collect(oP, cols, out);
  }

  function axpy(alpha: number, x: Data, y: Data): void {
    const n = x.length;
    if (!wasmTakes(n >= minElements, 2 * n, x, y)) return jsBackend.axpy(alpha, x, y);
    const xP = input(x, n),
      yP = output(y, n, true);
    k.axpy(alpha, xP, yP, n);
    collect(yP, n, y);
  }

  function allFinite(x: Data): boolean {
    const n = x.length;
    if (!wasmTakes(n >= minElements, n, x)) return jsBackend.allFinite(x);
    return k.allFinite(input(x, n), n) !== 0;
  }

  function adam(p: Data, g: Data, m: Data, v: Data, h: AdamStep): void {
    const n = p.length;
    if (!wasmTakes(n >= minElements, 4 * n, p, g, m, v)) return jsBackend.adam(p, g, m, v, h);
    const pP = output(p, n, true),
      gP = input(g, n),
      mP = output(m, n, true),
      vP = output(v, n, true);
    k.adam(pP, gP, mP, vP, n, h.b1, 1 - h.b1, h.b2, 1 - h.b2, h.step, h.epsHat, h.l2, h.shrink);
    collect(pP, n, p);
    collect(mP, n, m);
    collect(vP, n, v);
  }

  function im2col(g: Window, x: Data, xOff: number, count: number, col: Data, ld: number): void {
    const S = g.C * g.H * g.W,
      K = g.C * g.kh * g.kw,
      n = K * ld;
    if (!wasmTakes(n >= minElements, count * S + n, x, col)) return jsBackend.im2col(g, x, xOff, count, col, ld);
    const xP = input(x.subarray(xOff, xOff + count * S), count * S);
    // columns beyond this call's samples keep their values: then col is copied in first
    const colP = output(col, n, ld !== count * g.Ho * g.Wo);
    k.im2col(g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.Ho, g.Wo, xP, count, colP, ld);
    collect(colP, n, col);
  }

  function col2im(g: Window, col: Data, ld: number, count: number, dx: Data, xOff: number): void {
    const S = g.C * g.H * g.W,
      K = g.C * g.kh * g.kw,
      n = K * ld;
    if (!wasmTakes(n >= minElements, count * S + n, col, dx)) return jsBackend.col2im(g, col, ld, count, dx, xOff);
    const part = dx.subarray(xOff, xOff + count * S);
    const colP = input(col, n),
      dxP = output(part, count * S, true);
    k.col2im(g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.Ho, g.Wo, colP, ld, count, dxP);
    collect(dxP, count * S, part);
  }

  function maxPool(g: Window, x: Data, planes: number, y: Data, arg: Data): void {
    const nIn = planes * g.H * g.W,
      nOut = planes * g.Ho * g.Wo;
    if (!wasmTakes(nIn >= minElements, nIn + 2 * nOut, x, y, arg)) return jsBackend.maxPool(g, x, planes, y, arg);
    const xP = input(x, nIn),
      yP = output(y, nOut, false),
      aP = output(arg, nOut, false);
    k.maxPool(g.H, g.W, g.kh, g.sh, g.Ho, g.Wo, xP, planes, yP, aP);
    collect(yP, nOut, y);
    collect(aP, nOut, arg);
  }

  function scatterAdd(dy: Data, arg: Data, dx: Data): void {
    const n = dy.length;
    if (!wasmTakes(n >= minElements, 2 * n + dx.length, dy, arg, dx)) return jsBackend.scatterAdd(dy, arg, dx);
    // arg holds the indices the kernel adds into: each must lie inside dx
    for (let i = 0; i < n; i++)
      if (!(arg[i]! >= 0 && arg[i]! < dx.length)) throw new ShapeError(`wasm kernel: scatterAdd index ${arg[i]} outside the ${dx.length} values of its output`);
    const dyP = input(dy, n),
      aP = input(arg, n),
      dxP = output(dx, dx.length, true);
    k.scatterAdd(dyP, aP, n, dxP);
    collect(dxP, dx.length, dx);
  }

  function swapAxes(x: Data, A: number, B: number, P: number, y: Data, bias?: Data, op: SwapOp = 'identity'): void {
    const n = A * B * P;
    if (!wasmTakes(n >= minElements, 2 * n + A, x, y, bias)) return jsBackend.swapAxes(x, A, B, P, y, bias, op);
    const xP = input(x, n),
      bP = bias ? input(bias, A) : 0,
      yP = output(y, n, false);
    k.swapAxes(xP, A, B, P, yP, bP, OP_CODE.get(op)!);
    collect(yP, n, y);
  }

  const be: WasmBackend = {
    name: options.name ?? 'wasm',
    simd: flavour,
    get threads() {
      return pool ? pool.size + 1 : 1;
    },
    gemm,
    gemmBatched,
    attentionSoftmax,
    attentionSoftmaxBackward,
    layerNorm,
    layerNormBackward,
    unary,
    unaryBackward,
    addRowVector,
    sumRows,
    axpy,
    allFinite,
    adam,
    im2col,
    col2im,
    maxPool,
    scatterAdd,
    swapAxes,
    // row-wise and copying kernels: the reference ones (they were host loops in the layers before)
    fill: jsBackend.fill,
    copyRows: jsBackend.copyRows,
    softmax: jsBackend.softmax,
    softmaxBackward: jsBackend.softmaxBackward,
    rotatePairs: jsBackend.rotatePairs,
    gatherRows: jsBackend.gatherRows,
    scatterRows: jsBackend.scatterRows,
    lossGrad: jsBackend.lossGrad,
    argmaxRows: jsBackend.argmaxRows,
    avgPool: jsBackend.avgPool,
    avgPoolBackward: jsBackend.avgPoolBackward,
    ...wasmRecurrentKernels({
      k,
      minElements,
      minGemm,
      minParallel,
      takes: (paysOff, room, ...arrays) => paysOff && arrays.every(float32OrAbsent) && inst.begin(room),
      input,
      output,
      collect,
      reserve: (n) => inst.reserve(n),
      threads: () => (pool ? pool.size + 1 : 1),
      share,
      steps: sequenceKernels(() => be),
    }),
    alloc: (n) => inst.alloc(n),
    dispose() {
      pool?.stop();
      pool = undefined;
    },
    threadStats: () => ({ ...stats }),
    memoryStats: () => inst.memoryStats(),
  };
  return be;
}

let loading: Promise<WasmBackend> | undefined;

/** Load the default wasm backend once, with its threads running, and register it as 'wasm' (without selecting it). */
export function loadWasmBackend(): Promise<WasmBackend> {
  loading ??= createWasmBackend().then((b) => {
    registerBackend(b);
    return b;
  });
  return loading;
}
