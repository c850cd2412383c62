import { wasmModules } from './modules.generated.js';

/** The functions the AssemblyScript kernels export (src/tensor/wasm/assembly/index.ts). Pointers are byte addresses. */
export interface KernelExports {
  gemm(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: number,
    lda: number,
    b: number,
    ldb: number,
    c: number,
    ldc: number,
    accumulate: boolean,
    work: number,
  ): void;
  gemmChunks(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: number,
    lda: number,
    b: number,
    ldb: number,
    c: number,
    ldc: number,
    accumulate: boolean,
    work: number,
    splitCols: boolean,
    chunk: number,
    counter: number,
  ): number;
  gemmShared(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: number,
    lda: number,
    b: number,
    ldb: number,
    c: number,
    ldc: number,
    accumulate: boolean,
    work: number,
    packed: number,
    chunk: number,
    counter: number,
  ): number;
  gemmWorkBytes(): number;
  gemmBatched(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: number,
    lda: number,
    aOuter: number,
    aInner: number,
    b: number,
    ldb: number,
    bOuter: number,
    bInner: number,
    c: number,
    ldc: number,
    cOuter: number,
    cInner: number,
    inner: number,
    first: number,
    last: number,
    accumulate: boolean,
    work: number,
  ): void;
  gemmBatchedShare(
    transA: boolean,
    transB: boolean,
    m: number,
    n: number,
    k: number,
    a: number,
    lda: number,
    aOuter: number,
    aInner: number,
    b: number,
    ldb: number,
    bOuter: number,
    bInner: number,
    c: number,
    ldc: number,
    cOuter: number,
    cInner: number,
    inner: number,
    total: number,
    accumulate: boolean,
    work: number,
    counter: number,
  ): number;
  attentionSoftmax(s: number, blocks: number, Tq: number, Tk: number, scale: number, causal: boolean, qOffset: number, bias: number, heads: number): void;
  attentionSoftmaxBackward(p: number, dp: number, rows: number, n: number, scale: number): void;
  layerNorm(x: number, rows: number, d: number, g: number, b: number, eps: number, centre: boolean, y: number, xhat: number, r: number): void;
  layerNormBackward(dy: number, xhat: number, r: number, rows: number, d: number, g: number, centre: boolean, dx: number, dg: number, db: number): void;
  packedBFloats(n: number, k: number): number;
  unary(op: number, x: number, out: number, n: number): void;
  unaryBackward(op: number, x: number, y: number, dy: number, dx: number, n: number, accumulate: boolean): void;
  addRowVector(x: number, v: number, rows: number, cols: number, out: number, op: number): void;
  sumRows(x: number, rows: number, cols: number, out: number, accumulate: boolean): void;
  axpy(alpha: number, x: number, y: number, n: number): void;
  allFinite(x: number, n: number): number;
  im2col(
    C: number,
    H: number,
    W: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    ph: number,
    pw: number,
    Ho: number,
    Wo: number,
    x: number,
    count: number,
    col: number,
    ld: number,
  ): void;
  col2im(
    C: number,
    H: number,
    W: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    ph: number,
    pw: number,
    Ho: number,
    Wo: number,
    col: number,
    ld: number,
    count: number,
    dx: number,
  ): void;
  maxPool(H: number, W: number, k: number, stride: number, Ho: number, Wo: number, x: number, planes: number, y: number, arg: number): void;
  scatterAdd(dy: number, arg: number, n: number, dx: number): void;
  swapAxes(x: number, A: number, B: number, P: number, y: number, bias: number, op: number): void;
  lstmCell(rows: number, h: number, z: number, cPrev: number, c: number, hOut: number): void;
  lstmCellBackward(rows: number, h: number, gates: number, cPrev: number, c: number, dh: number, dc: number, dz: number): void;
  lstmSequence(
    rows: number,
    h: number,
    T: number,
    w: number,
    z: number,
    hs: number,
    cs: number,
    work: number,
    packed: number,
    chunk: number,
    counter: number,
  ): number;
  lstmSequenceBackward(
    rows: number,
    h: number,
    T: number,
    w: number,
    gates: number,
    cs: number,
    dy: number,
    dh: number,
    dc: number,
    dz: number,
    bptt: number,
    work: number,
    packed: number,
    chunk: number,
    counter: number,
  ): number;
  gruSequence(
    rows: number,
    h: number,
    T: number,
    w: number,
    bias: number,
    xg: number,
    hg: number,
    hs: number,
    work: number,
    packed: number,
    chunk: number,
    counter: number,
  ): number;
  gruSequenceBackward(
    rows: number,
    h: number,
    T: number,
    w: number,
    gates: number,
    hg: number,
    hs: number,
    dy: number,
    dh: number,
    dxg: number,
    dhg: number,
    bptt: number,
    work: number,
    packed: number,
    chunk: number,
    counter: number,
  ): number;
  recurrentPackedFloats(h: number, gates: number): number;
  gruCell(rows: number, h: number, xg: number, hg: number, hPrev: number, hOut: number): void;
  gruCellBackward(rows: number, h: number, gates: number, hg: number, hPrev: number, dh: number, dxg: number, dhg: number, dhPrev: number): void;
  mguGate(rows: number, h: number, xg: number, hgF: number, hPrev: number, fh: number): void;
  mguCell(rows: number, h: number, xg: number, hgN: number, hPrev: number, hOut: number): void;
  mguCellBackward(rows: number, h: number, gates: number, hPrev: number, dh: number, dxg: number, dhPrev: number): void;
  mguGateBackward(rows: number, h: number, gates: number, hPrev: number, dfh: number, dxg: number, dhPrev: number): void;
  adam(
    p: number,
    g: number,
    m: number,
    v: number,
    n: number,
    b1: number,
    a1: number,
    b2: number,
    a2: number,
    step: number,
    epsHat: number,
    l2: number,
    shrink: number,
  ): void;
}

export type SimdFlavour = 'relaxed' | 'plain';

const PAGE = 65536;
const MAX_PAGES = 32768; // as in scripts/build-wasm.mjs
/** Bytes [CTRL_BASE, CTRL_BASE + CTRL_BYTES·(threads+1)) hold the thread pool's control words. */
export const CTRL_BASE = 1024;
export const CTRL_BYTES = 128;
const WORK_BASE = PAGE;
/** The most threads one instance can have: their control words must fit below WORK_BASE. */
export const MAX_THREADS = (WORK_BASE - CTRL_BASE) / CTRL_BYTES - 1;

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

/** Resident storage (KernelInstance.alloc) stops at this many bytes; beyond it arrays are ordinary ones. */
const MAX_RESIDENT_BYTES = 2 ** 30;

/**
 * First-fit allocation of 64-byte-aligned blocks above `base`; freed neighbours merge, and a
 * block freed at the top lowers it. Byte addresses; it only bookkeeps, the caller grows memory.
 */
class Blocks {
  /** Free blocks below `top`, sorted by address. */
  private readonly free: { at: number; bytes: number }[] = [];
  constructor(public top: number) {}

  take(bytes: number): number {
    for (let i = 0; i < this.free.length; i++) {
      const f = this.free[i]!;
      if (f.bytes < bytes) continue;
      const at = f.at;
      if (f.bytes === bytes) this.free.splice(i, 1);
      else {
        f.at += bytes;
        f.bytes -= bytes;
      }
      return at;
    }
    const at = this.top;
    this.top += bytes;
    return at;
  }

  give(at: number, bytes: number): void {
    let i = 0;
    while (i < this.free.length && this.free[i]!.at < at) i++;
    this.free.splice(i, 0, { at, bytes });
    const next = this.free[i + 1];
    if (next && at + bytes === next.at) {
      this.free[i]!.bytes += next.bytes;
      this.free.splice(i + 1, 1);
    }
    const prev = this.free[i - 1];
    if (prev && prev.at + prev.bytes === at) {
      prev.bytes += this.free[i]!.bytes;
      this.free.splice(i, 1);
      i--;
    }
    const last = this.free[this.free.length - 1];
    if (last && last.at + last.bytes === this.top) {
      this.top = last.at;
      this.free.pop();
    }
  }
}

/**
 * One compiled kernel module instantiated on one memory, and the layout of that memory:
 * control words, then one gemm scratch area per thread, then blocks: resident arrays
 * (`alloc`) and the argument region that every call reuses from its start (no allocation
 * per call once it is large enough).
 */
export class KernelInstance {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  readonly exports: KernelExports;
  readonly workBytes: number;
  private f32: Float32Array;
  private top = 0;
  /** The argument region: a block of `argsBytes` at `argsBase`. */
  private argsBase = 0;
  private argsBytes = 0;
  private readonly blocks: Blocks;
  /** Every ArrayBuffer object this memory has had (a shared memory gets a new one when it grows; views of the old stay valid). */
  private readonly buffers = new WeakSet<ArrayBufferLike>();
  private residentBytes = 0;
  private readonly finalizer = new FinalizationRegistry<[number, number]>(([at, bytes]) => {
    this.residentBytes -= bytes;
    this.blocks.give(at, bytes);
  });

  constructor(
    readonly flavour: SimdFlavour,
    readonly shared: boolean,
    readonly threads: number,
    module: WebAssembly.Module,
  ) {
    this.module = module;
    this.memory = new WebAssembly.Memory(shared ? { initial: 1, maximum: MAX_PAGES, shared: true } : { initial: 1, maximum: MAX_PAGES });
    this.exports = new WebAssembly.Instance(module, { env: { memory: this.memory } }).exports as unknown as KernelExports;
    this.workBytes = this.exports.gemmWorkBytes();
    this.blocks = new Blocks(WORK_BASE + align(this.workBytes) * threads);
    this.f32 = new Float32Array(this.memory.buffer);
    this.buffers.add(this.memory.buffer);
    if (!this.begin(PAGE)) throw new Error('wasm backend: cannot reserve its working memory');
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

  /** Grow the memory to hold `end` bytes; false when it cannot. */
  private reach(end: number): boolean {
    const have = this.memory.buffer.byteLength;
    if (end <= have) return true;
    if (end > MAX_PAGES * PAGE) return false;
    try {
      this.memory.grow(Math.ceil((end - have) / PAGE));
    } catch {
      return false;
    }
    this.f32 = new Float32Array(this.memory.buffer);
    this.buffers.add(this.memory.buffer);
    return true;
  }

  /**
   * Start laying out a call's arguments; `floats` is the total it will need. False when the
   * memory cannot grow that far (the caller then uses the reference backend).
   */
  begin(floats: number): boolean {
    const need = align(floats * 4 + 64 * 8);
    if (need > this.argsBytes) {
      const old = this.argsBytes;
      const bytes = Math.max(need, 2 * old);
      if (old) this.blocks.give(this.argsBase, old);
      const at = this.blocks.take(bytes);
      if (!this.reach(at + bytes)) {
        this.blocks.give(at, bytes);
        if (old) this.argsBase = this.blocks.take(old); // its contents need not survive
        return false;
      }
      this.argsBase = at;
      this.argsBytes = bytes;
    }
    this.top = this.argsBase;
    return true;
  }

  /** Zero the three counter words at CTRL_BASE, for a shared-kernel call that runs on the calling thread alone. */
  clearCounters(): void {
    this.f32.fill(0, CTRL_BASE >> 2, (CTRL_BASE >> 2) + 3);
  }

  /** Reserve n floats (64-byte aligned) of the argument region and return their byte address. */
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

  /**
   * n zeroed floats that live in this memory, so the kernels use them where they are instead
   * of copying them in and out; undefined where that cannot be done (an unshared memory, whose
   * views break when it grows, or 1 GiB resident already). The block is freed when the returned
   * array is garbage-collected — a subarray of it does not keep it alive.
   */
  alloc(n: number): Float32Array | undefined {
    if (!this.shared) return undefined;
    const bytes = align(Math.max(1, n) * 4);
    if (this.residentBytes + bytes > MAX_RESIDENT_BYTES) return undefined;
    const at = this.blocks.take(bytes);
    if (!this.reach(at + bytes)) {
      this.blocks.give(at, bytes);
      return undefined;
    }
    const view = new Float32Array(this.memory.buffer, at, n);
    view.fill(0);
    this.residentBytes += bytes;
    this.finalizer.register(view, [at, bytes]);
    return view;
  }

  memoryStats(): { memoryBytes: number; residentBytes: number } {
    return { memoryBytes: this.memory.buffer.byteLength, residentBytes: this.residentBytes };
  }

  /** The byte address of x if it lives in this memory, else −1. */
  addressOf(x: Float32Array): number {
    return this.buffers.has(x.buffer) ? x.byteOffset : -1;
  }
}

function align(bytes: number): number {
  return (bytes + 63) & ~63;
}
