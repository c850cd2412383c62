import type { Backend, UnaryOp } from './backend.js';
import { registerBackend, setBackend } from './backend.js';
import { jsBackend } from './js-backend.js';
import type { Data } from './tensor.js';
import { KernelInstance, relaxedSimdSupported, sharedMemorySupported } from './wasm/instance.js';
import type { SimdFlavour } from './wasm/instance.js';
import { ThreadPool } from './wasm/threads.js';
import type { ChunkedGemm } from './wasm/threads.js';

/** Op codes of the AssemblyScript kernels (src/tensor/wasm/assembly/elementwise.ts), by position. */
const OPS: readonly UnaryOp[] = ['identity', 'sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'exp', 'neg', 'square'];
const OP_CODE = new Map(OPS.map((op, i) => [op, i]));
/** Ops whose derivative reads x, and those whose derivative reads y = f(x) (the others read neither). */
const NEEDS_X = new Set<UnaryOp>(['relu', 'gelu', 'softplus', 'square']);
const NEEDS_Y = new Set<UnaryOp>(['sigmoid', 'tanh', 'exp']);
/** Register tile of the micro-kernel (src/tensor/wasm/assembly/gemm.ts): thread shares are multiples of it. */
const MR = 4, NR = 8;

export interface WasmBackendOptions {
  /** 'auto' (default) takes relaxed SIMD where the runtime validates it, else plain SIMD. */
  simd?: 'auto' | SimdFlavour;
  /** Threads for large products, the calling thread included. Default: 2 where shared memory exists (capped by the core count), else 1. */
  threads?: number;
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
  /**
   * 'await' (default): resolve once the worker threads run. 'background': resolve as soon as
   * the module is compiled and run single-threaded until the workers are up (starting a
   * worker takes ~0.1 s, which a short CLI command should not wait for).
   */
  startThreads?: 'await' | 'background';
}

/** A Backend running AssemblyScript SIMD kernels, plus what it was built with. */
export interface WasmBackend extends Backend {
  readonly simd: SimdFlavour;
  /** Threads in use now (workers started in the background count once they run). */
  readonly threads: number;
  /** Stop the worker threads (the backend keeps working on one thread). */
  dispose(): void;
  /** Products shared between threads so far, their chunks, and how many of those the workers ran. */
  threadStats(): { sharedProducts: number; chunks: number; chunksByWorkers: number };
}

// From the per-call costs of small kernels on js and wasm (bench/gemm-wasm.ts, docs/backends.md).
const DEFAULT_MIN_GEMM_VOLUME = 128;
const DEFAULT_MIN_ELEMENTS = 128;
const DEFAULT_MIN_PARALLEL_VOLUME = 1 << 18;

function isF32(x: Data): x is Float32Array {
  return x instanceof Float32Array;
}

async function coreCount(): Promise<number> {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
  if (nav?.hardwareConcurrency) return nav.hardwareConcurrency;
  try {
    const specifier = 'node:os';
    const os = (await import(/* @vite-ignore */ specifier)) as typeof import('node:os');
    return os.availableParallelism();
  } catch {
    return 1;
  }
}

/**
 * Build a wasm backend (not registered, not selected). Float64 arguments are handed to the
 * reference backend: the kernels are float32 only.
 */
export async function createWasmBackend(options: WasmBackendOptions = {}): Promise<WasmBackend> {
  const flavour: SimdFlavour = options.simd === 'plain' || (options.simd !== 'relaxed' && !relaxedSimdSupported()) ? 'plain' : 'relaxed';
  const wanted = Math.max(1, Math.floor(options.threads ?? Math.min(2, await coreCount())));
  // one thread needs no shared memory: it gets the module with an ordinary one
  const shared = wanted > 1 && sharedMemorySupported();
  const threads = shared ? wanted : 1;
  const inst = await KernelInstance.create(flavour, shared, threads);
  let pool: ThreadPool | undefined;
  let disposed = false;
  if (threads > 1) {
    // no workers here (e.g. a page without Worker): the backend stays on one thread
    const starting = ThreadPool.start(inst, threads - 1).then((p) => { if (disposed) p.stop(); else pool = p; }, () => undefined);
    if (options.startThreads !== 'background') await starting;
  }
  const k = inst.exports;
  const stats = { sharedProducts: 0, chunks: 0, chunksByWorkers: 0 };
  const minGemm = options.minGemmVolume ?? DEFAULT_MIN_GEMM_VOLUME;
  const minElements = options.minElements ?? DEFAULT_MIN_ELEMENTS;
  const minParallel = options.minParallelVolume ?? DEFAULT_MIN_PARALLEL_VOLUME;

  /**
   * Chunking of a product shared by the threads: split C's longer side into about four
   * chunks per thread, whole register tiles each and not thinner than 16 (each chunk repacks
   * the other operand).
   */
  function chunking(m: number, n: number): { splitCols: boolean; chunk: number } {
    const splitCols = n > m, total = splitCols ? n : m, unit = splitCols ? NR : MR;
    const chunk = Math.ceil(Math.max(Math.ceil(total / (4 * threads)), 16) / unit) * unit;
    return { splitCols, chunk };
  }

  // The dispatch is kept apart from the work so that it stays small enough for the JIT to
  // inline into callers: small models then pay nothing for it.
  function gemm(transA: boolean, transB: boolean, m: number, n: number, kk: number, a: Data, b: Data, c: Data, accumulate: boolean): void {
    if (m * n * kk < minGemm || !isF32(a) || !isF32(b) || !isF32(c) || m === 0 || n === 0 || !inst.begin(m * kk + kk * n + m * n)) {
      jsBackend.gemm(transA, transB, m, n, kk, a, b, c, accumulate);
    } else {
      gemmInWasm(transA, transB, m, n, kk, a, b, c, accumulate);
    }
  }

  /** gemm once inst.begin has made room for A, B and C. */
  function gemmInWasm(transA: boolean, transB: boolean, m: number, n: number, kk: number, a: Float32Array, b: Float32Array, c: Float32Array, accumulate: boolean): void {
    const aP = inst.put(a, m * kk);
    const bP = inst.put(b, kk * n);
    const cP = accumulate ? inst.put(c, m * n) : inst.reserve(m * n);
    const lda = transA ? m : kk, ldb = transB ? kk : n;
    if (pool && m * n * kk >= minParallel) {
      const { splitCols, chunk } = chunking(m, n);
      const job: ChunkedGemm = [transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, splitCols, chunk, pool.counter];
      pool.post(job);
      const mine = k.gemmChunks(transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, inst.work(0), splitCols, chunk, pool.counter);
      const theirs = pool.finish();
      stats.sharedProducts++;
      stats.chunks += mine + theirs;
      stats.chunksByWorkers += theirs;
    } else {
      k.gemm(transA, transB, m, n, kk, aP, lda, bP, ldb, cP, n, accumulate, inst.work(0));
    }
    inst.get(cP, m * n, c);
  }

  function unary(op: UnaryOp, x: Data, out: Data): void {
    const n = x.length;
    if (n < minElements || op === 'identity' || !isF32(x) || !isF32(out)) return jsBackend.unary(op, x, out);
    if (!inst.begin(n)) return jsBackend.unary(op, x, out);
    const p = inst.put(x, n);
    k.unary(OP_CODE.get(op)!, p, p, n);
    inst.get(p, n, out);
  }

  function unaryBackward(op: UnaryOp, x: Data, y: Data, dy: Data, dx: Data, accumulate: boolean): void {
    const n = dy.length;
    if (n < minElements || !isF32(x) || !isF32(y) || !isF32(dy) || !isF32(dx)) return jsBackend.unaryBackward(op, x, y, dy, dx, accumulate);
    if (!inst.begin(4 * n)) return jsBackend.unaryBackward(op, x, y, dy, dx, accumulate);
    const dyP = inst.put(dy, n);
    const xP = NEEDS_X.has(op) ? inst.put(x, n) : dyP;
    const yP = NEEDS_Y.has(op) ? inst.put(y, n) : dyP;
    const dxP = accumulate ? inst.put(dx, n) : inst.reserve(n);
    k.unaryBackward(OP_CODE.get(op)!, xP, yP, dyP, dxP, n, accumulate);
    inst.get(dxP, n, dx);
  }

  function addRowVector(x: Data, v: Data, rows: number, cols: number, out: Data, op: UnaryOp): void {
    const n = rows * cols;
    if (n < minElements || !isF32(x) || !isF32(v) || !isF32(out)) return jsBackend.addRowVector(x, v, rows, cols, out, op);
    if (!inst.begin(n + cols)) return jsBackend.addRowVector(x, v, rows, cols, out, op);
    const xP = inst.put(x, n);
    const vP = inst.put(v, cols);
    k.addRowVector(xP, vP, rows, cols, xP, OP_CODE.get(op)!);
    inst.get(xP, n, out);
  }

  function sumRows(x: Data, rows: number, cols: number, out: Data, accumulate: boolean): void {
    const n = rows * cols;
    if (n < minElements || !isF32(x) || !isF32(out)) return jsBackend.sumRows(x, rows, cols, out, accumulate);
    if (!inst.begin(n + cols)) return jsBackend.sumRows(x, rows, cols, out, accumulate);
    const xP = inst.put(x, n);
    const oP = accumulate ? inst.put(out, cols) : inst.reserve(cols);
    k.sumRows(xP, rows, cols, oP, accumulate);
    inst.get(oP, cols, out);
  }

  function axpy(alpha: number, x: Data, y: Data): void {
    const n = x.length;
    if (n < minElements || !isF32(x) || !isF32(y)) return jsBackend.axpy(alpha, x, y);
    if (!inst.begin(2 * n)) return jsBackend.axpy(alpha, x, y);
    const xP = inst.put(x, n);
    const yP = inst.put(y, n);
    k.axpy(alpha, xP, yP, n);
    inst.get(yP, n, y);
  }

  return {
    name: options.name ?? 'wasm',
    simd: flavour,
    get threads() { return pool ? pool.size + 1 : 1; },
    gemm, unary, unaryBackward, addRowVector, sumRows, axpy,
    dispose() { disposed = true; pool?.stop(); pool = undefined; },
    threadStats: () => ({ ...stats }),
  };
}

let loading: Promise<WasmBackend> | undefined;

/** Load the default wasm backend once and register it as 'wasm' (without selecting it). */
export function loadWasmBackend(): Promise<WasmBackend> {
  loading ??= createWasmBackend({ startThreads: 'background' }).then((b) => { registerBackend(b); return b; });
  return loading;
}

/**
 * Load the wasm backend, start its threads and make it the current backend. Where it cannot
 * load, the reference backend stays current and is returned; nothing is printed.
 */
export async function initFastBackend(): Promise<Backend> {
  try {
    return setBackend(await loadWasmBackend());
  } catch {
    loading = undefined;
    return setBackend(jsBackend);
  }
}
