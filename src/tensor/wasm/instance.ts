import { wasmModules } from './modules.generated.js';

/** The functions the AssemblyScript kernels export (src/tensor/wasm/assembly/index.ts). Pointers are byte addresses. */
export interface KernelExports {
  gemm(transA: boolean, transB: boolean, m: number, n: number, k: number, a: number, lda: number, b: number, ldb: number, c: number, ldc: number, accumulate: boolean, work: number): void;
  gemmChunks(transA: boolean, transB: boolean, m: number, n: number, k: number, a: number, lda: number, b: number, ldb: number, c: number, ldc: number, accumulate: boolean, work: number, splitCols: boolean, chunk: number, counter: number): number;
  gemmWorkBytes(): number;
  unary(op: number, x: number, out: number, n: number): void;
  unaryBackward(op: number, x: number, y: number, dy: number, dx: number, n: number, accumulate: boolean): void;
  addRowVector(x: number, v: number, rows: number, cols: number, out: number, op: number): void;
  sumRows(x: number, rows: number, cols: number, out: number, accumulate: boolean): void;
  axpy(alpha: number, x: number, y: number, n: number): void;
}

export type SimdFlavour = 'relaxed' | 'plain';

const PAGE = 65536;
const MAX_PAGES = 32768; // as in scripts/build-wasm.mjs
/** Bytes [CTRL_BASE, CTRL_BASE + CTRL_BYTES·(threads+1)) hold the thread pool's control words. */
export const CTRL_BASE = 1024;
export const CTRL_BYTES = 128;
const WORK_BASE = PAGE;

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const s = atob(base64);
  const bytes = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) bytes[i] = s.charCodeAt(i);
  return bytes;
}

/** Whether this runtime can validate the relaxed-SIMD module (Node 20 needs --experimental-wasm-relaxed-simd). */
export function relaxedSimdSupported(): boolean {
  try {
    return WebAssembly.validate(decode(wasmModules.relaxed));
  } catch {
    return false;
  }
}

/** Whether shared wasm memory can be made here (Node; a browser page only when cross-origin isolated). */
export function sharedMemorySupported(): boolean {
  try {
    if (typeof SharedArrayBuffer === 'undefined') return false;
    new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    return true;
  } catch {
    return false;
  }
}

/**
 * One compiled kernel module instantiated on one memory, and the layout of that memory:
 * control words, then one gemm scratch area per thread, then an argument region that every
 * call reuses from its start (no allocation per call once the memory is large enough).
 */
export class KernelInstance {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly exports: KernelExports;
  readonly workBytes: number;
  readonly argsBase: number;
  private f32: Float32Array;
  private top: number;
  /** Bytes of memory now (only this thread grows it). */
  private capacity: number;

  constructor(readonly flavour: SimdFlavour, readonly shared: boolean, readonly threads: number, module: WebAssembly.Module) {
    this.module = module;
    this.memory = new WebAssembly.Memory(shared ? { initial: 1, maximum: MAX_PAGES, shared: true } : { initial: 1, maximum: MAX_PAGES });
    this.exports = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports as unknown as KernelExports;
    this.workBytes = this.exports.gemmWorkBytes();
    this.argsBase = WORK_BASE + align(this.workBytes) * threads;
    this.memory.grow(Math.ceil((this.argsBase + 4 * PAGE) / PAGE) - 1);
    this.capacity = this.memory.buffer.byteLength;
    this.f32 = new Float32Array(this.memory.buffer);
    this.top = this.argsBase;
  }

  static async create(flavour: SimdFlavour, shared: boolean, threads: number): Promise<KernelInstance> {
    const key = flavour === 'relaxed' ? (shared ? 'relaxedShared' : 'relaxed') : shared ? 'plainShared' : 'plain';
    const module = await WebAssembly.compile(decode(wasmModules[key]));
    return new KernelInstance(flavour, shared, threads, module);
  }

  /** Scratch of thread t for gemm packing. */
  work(t: number): number {
    return WORK_BASE + align(this.workBytes) * t;
  }

  /**
   * Start laying out a call's arguments; `floats` is the total it will need. False when the
   * memory cannot grow that far (the caller then uses the reference backend).
   */
  begin(floats: number): boolean {
    this.top = this.argsBase;
    const need = this.argsBase + floats * 4 + 64 * 8;
    if (need > this.capacity) {
      if (need > MAX_PAGES * PAGE) return false;
      try {
        this.memory.grow(Math.ceil((need - this.capacity) / PAGE));
      } catch {
        return false;
      }
      this.capacity = this.memory.buffer.byteLength;
      this.f32 = new Float32Array(this.memory.buffer);
    }
    return true;
  }

  /** Reserve n floats (64-byte aligned) and return their byte address. */
  reserve(n: number): number {
    const p = this.top;
    this.top = align(p + n * 4);
    return p;
  }

  /** Copy the first n values of `src` in; returns the byte address. */
  put(src: Float32Array, n: number): number {
    const p = this.reserve(n);
    this.f32.set(n === src.length ? src : src.subarray(0, n), p >> 2);
    return p;
  }

  /** Copy n floats at byte address p out to dst. */
  get(p: number, n: number, dst: Float32Array): void {
    dst.set(this.f32.subarray(p >> 2, (p >> 2) + n));
  }
}

function align(bytes: number): number {
  return (bytes + 63) & ~63;
}
