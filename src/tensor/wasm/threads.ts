import { CTRL_BASE, CTRL_BYTES } from './instance.js';
import type { KernelInstance } from './instance.js';

/**
 * Worker threads that share the kernel instance's memory and help with large products.
 * Hand-off is through control words in the shared memory (Atomics.wait/notify), not
 * messages, so a call costs a wake-up, not a structured clone; a worker spins for a moment
 * after each job before it sleeps, so that the next product of a training step (a few
 * microseconds later) finds it awake. The work itself is split dynamically: every thread
 * runs `gemmShared` (op(B) packed once, by all threads, then row chunks of C) or
 * `gemmChunks` (row or column chunks of C, each packing its own operands), which take their
 * share from counters in shared memory, so a worker that the OS has not scheduled yet costs
 * nothing — the calling thread simply takes more, and withdraws the offer if the worker
 * never picked it up. (One descheduled in the middle of its share delays the product until
 * it runs again: the others wait for its chunk, or its packing group.)
 *
 * Batches of products (the heads of an attention) are shared too: `gemmBatchedShare` hands out
 * whole products from the counter; and so are the steps of an LSTM or GRU over a sequence
 * (`lstmSequence`, `gruSequence` and their pullbacks: W_hh packed once by all, then chunks of
 * the batch's rows through every step).
 *
 * Control block of worker w, Int32 words at CTRL_BASE + CTRL_BYTES·(w+1): [0] job sequence
 * number (bumped to post, −1 to stop), [1] state (IDLE, POSTED, TAKEN), [2] the job's kind
 * (GEMM: a SharedGemm, BATCH: a SharedBatch, LSTM, LSTM_BACK, GRU, GRU_BACK: a
 * SharedSequence), [3…] the job, [31] how many chunks the worker
 * ran of the last job it took. The counters are the three words at CTRL_BASE.
 */
const SEQ = 0,
  STATE = 1,
  KIND = 2,
  ARGS = 3,
  RAN = 31,
  WORDS = CTRL_BYTES / 4;
const GEMM = 0;
export const BATCH = 1;
export const LSTM = 2;
export const LSTM_BACK = 3;
export const GRU = 4;
export const GRU_BACK = 5;
const IDLE = 0,
  POSTED = 1,
  TAKEN = 2;
/** How long a thread spins on a control word before it blocks (milliseconds). */
const SPIN_MS = 0.25;

// Runs inside each worker (Node worker_threads or a browser Worker), as plain JavaScript.
const WORKER_SOURCE = `
const inNode = typeof self === 'undefined';
const port = inNode ? require('node:worker_threads').parentPort : self;
const start = ({ module, memory, ctrl, work }) => {
  const { gemmChunks, gemmShared, gemmBatchedShare, lstmSequence, lstmSequenceBackward, gruSequence, gruSequenceBackward } = new WebAssembly.Instance(module, { env: { memory } }).exports;
  const w = new Int32Array(memory.buffer, ctrl, ${WORDS});
  port.postMessage('ready');
  let seen = 0;
  for (;;) {
    const until = performance.now() + ${SPIN_MS};
    for (let i = 0; Atomics.load(w, ${SEQ}) === seen; i++) {
      if ((i & 255) === 0 && performance.now() > until) { Atomics.wait(w, ${SEQ}, seen); break; }
    }
    seen = Atomics.load(w, ${SEQ});
    if (seen < 0) return;
    if (Atomics.compareExchange(w, ${STATE}, ${POSTED}, ${TAKEN}) !== ${POSTED}) continue;
    const a = ${ARGS}, packed = w[a + 15], kind = w[${KIND}];
    w[${RAN}] = kind === ${LSTM}
      ? lstmSequence(w[a], w[a + 1], w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], work, w[a + 7], w[a + 8], w[a + 9])
      : kind === ${LSTM_BACK}
      ? lstmSequenceBackward(w[a], w[a + 1], w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], w[a + 7], w[a + 8], w[a + 9], w[a + 10],
        work, w[a + 11], w[a + 12], w[a + 13])
      : kind === ${GRU}
      ? gruSequence(w[a], w[a + 1], w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], w[a + 7], work, w[a + 8], w[a + 9], w[a + 10])
      : kind === ${GRU_BACK}
      ? gruSequenceBackward(w[a], w[a + 1], w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], w[a + 7], w[a + 8], w[a + 9], w[a + 10],
        w[a + 11], work, w[a + 12], w[a + 13], w[a + 14])
      : kind === ${BATCH}
      ? gemmBatchedShare(w[a] !== 0, w[a + 1] !== 0, w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], w[a + 7], w[a + 8], w[a + 9], w[a + 10],
        w[a + 11], w[a + 12], w[a + 13], w[a + 14], w[a + 15], w[a + 16], w[a + 17], w[a + 18], w[a + 19] !== 0, work, w[a + 20])
      : packed !== 0
      ? gemmShared(w[a] !== 0, w[a + 1] !== 0, w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], w[a + 7], w[a + 8], w[a + 9], w[a + 10],
        w[a + 11] !== 0, work, packed, w[a + 13], w[a + 14])
      : gemmChunks(w[a] !== 0, w[a + 1] !== 0, w[a + 2], w[a + 3], w[a + 4], w[a + 5], w[a + 6], w[a + 7], w[a + 8], w[a + 9], w[a + 10],
        w[a + 11] !== 0, work, w[a + 12] !== 0, w[a + 13], w[a + 14]);
    Atomics.store(w, ${STATE}, ${IDLE});
    Atomics.notify(w, ${STATE});
  }
};
if (inNode) port.once('message', start); else self.onmessage = (e) => start(e.data);
`;

interface WorkerHandle {
  post(msg: unknown): void;
  once(f: () => void): void;
  stop(): void;
}

/**
 * A product shared between threads: the product, then whether chunks are columns, the chunk
 * size and the counters' address (the arguments of KernelExports.gemmChunks without the
 * scratch pointer), then where op(B) is packed for gemmShared — 0 for gemmChunks.
 */
export type SharedGemm = [
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
  splitCols: boolean,
  chunk: number,
  counter: number,
  packed: number,
];

/** A batch of products shared between threads: the arguments of KernelExports.gemmBatchedShare without the scratch pointer. */
export type SharedBatch = [
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
  counter: number,
];

/**
 * The steps of a recurrent layer shared between threads: the arguments of KernelExports.lstmSequence,
 * gruSequence or their pullbacks (by the job's kind), without the scratch pointer.
 */
export type SharedSequence = number[];

export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

/** The number of cores the runtime reports: navigator.hardwareConcurrency in a browser, os.availableParallelism() in Node; 1 when neither says. */
export async function coreCount(): Promise<number> {
  const nav = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator;
  if (nav?.hardwareConcurrency) return nav.hardwareConcurrency;
  if (!isNode()) return 1;
  const specifier = 'node:os';
  const os = (await import(/* @vite-ignore */ specifier)) as typeof import('node:os');
  return os.availableParallelism();
}

async function spawn(): Promise<WorkerHandle> {
  if (isNode()) {
    // A computed specifier keeps bundlers from pulling a Node built-in into the browser build.
    const specifier = 'node:worker_threads';
    const { Worker } = (await import(/* @vite-ignore */ specifier)) as typeof import('node:worker_threads');
    const w = new Worker(WORKER_SOURCE, { eval: true });
    w.unref(); // an idle pool never keeps the process alive
    return { post: (m) => w.postMessage(m), once: (f) => w.once('message', f), stop: () => void w.terminate() };
  }
  const url = URL.createObjectURL(new Blob([WORKER_SOURCE], { type: 'text/javascript' }));
  const w = new Worker(url);
  return {
    post: (m) => w.postMessage(m),
    once: (f) => w.addEventListener('message', () => f(), { once: true }),
    stop: () => {
      w.terminate();
      URL.revokeObjectURL(url);
    },
  };
}

export class ThreadPool {
  /** Byte address of the shared counters (three Int32 words). */
  readonly counter = CTRL_BASE;
  private readonly ctrl: Int32Array;
  private seq = 0;
  private stopped = false;
  /** The main thread of a browser page may not block in Atomics.wait (a Worker may): it spins instead. */
  private readonly canBlock = isNode() || typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined';

  private constructor(
    private readonly workers: WorkerHandle[],
    inst: KernelInstance,
  ) {
    this.ctrl = new Int32Array(inst.memory.buffer, CTRL_BASE, WORDS * (workers.length + 1));
  }

  get size(): number {
    return this.workers.length;
  }

  /** Start `count` workers on the instance's (shared) memory; worker w uses scratch inst.work(w + 1). */
  static async start(inst: KernelInstance, count: number): Promise<ThreadPool> {
    // all at once: each worker boots its own runtime, so eight take about as long as one
    // (worker w sits at index w: its control block is the (w+1)-th)
    const workers: WorkerHandle[] = [];
    try {
      await Promise.all(
        Array.from({ length: count }, async (_, w) => {
          const h = await spawn();
          workers[w] = h;
          const ready = new Promise<void>((resolve) => h.once(resolve));
          h.post({ module: inst.module, memory: inst.memory, ctrl: CTRL_BASE + CTRL_BYTES * (w + 1), work: inst.work(w + 1) });
          await ready;
        }),
      );
    } catch (e) {
      for (const h of workers) h?.stop();
      throw e;
    }
    return new ThreadPool(workers, inst);
  }

  /** Reset the counters and offer the job to every worker (the caller then runs its share itself). */
  post(job: SharedGemm | SharedBatch | SharedSequence, kind = GEMM): void {
    for (let i = 0; i < 3; i++) Atomics.store(this.ctrl, i, 0);
    this.seq = this.seq >= 0x7fffffff ? 1 : this.seq + 1; // positive: −1 tells a worker to stop
    for (let w = 0; w < this.workers.length; w++) {
      const base = (w + 1) * WORDS;
      this.ctrl[base + KIND] = kind;
      for (let i = 0; i < job.length; i++) this.ctrl[base + ARGS + i] = Number(job[i]);
      Atomics.store(this.ctrl, base + STATE, POSTED);
      Atomics.store(this.ctrl, base + SEQ, this.seq);
      Atomics.notify(this.ctrl, base + SEQ);
    }
  }

  /**
   * Withdraw the offer from workers that never took it; wait for those that did. Returns
   * how many chunks the workers ran.
   */
  finish(): number {
    let ran = 0;
    for (let w = 0; w < this.workers.length; w++) {
      const base = (w + 1) * WORDS,
        i = base + STATE;
      if (Atomics.compareExchange(this.ctrl, i, POSTED, IDLE) === POSTED) continue;
      // the worker is finishing its last chunk: spin (a wake-up costs more), then block
      const until = performance.now() + SPIN_MS;
      for (let s = 0; Atomics.load(this.ctrl, i) === TAKEN; s++) {
        if (this.canBlock && (s & 255) === 0 && performance.now() > until) Atomics.wait(this.ctrl, i, TAKEN);
      }
      ran += this.ctrl[base + RAN]!;
    }
    return ran;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    for (let w = 0; w < this.workers.length; w++) {
      const base = (w + 1) * WORDS;
      Atomics.store(this.ctrl, base + SEQ, -1);
      Atomics.notify(this.ctrl, base + SEQ);
      this.workers[w]!.stop();
    }
  }
}
