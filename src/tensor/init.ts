import { ParalensError, RangeArgError, UnknownNameError } from '../errors.js';
import type { Backend } from './backend.js';
import { jsBackend } from './js-backend.js';
import { registerBackend, setBackend } from './registry.js';
import { createWasmBackend } from './wasm-backend.js';
import type { WasmBackend } from './wasm-backend.js';
import { MAX_THREADS, relaxedSimdSupported } from './wasm/instance.js';
import { createWebGpuBackend } from './webgpu/backend.js';
import { coreCount, isNode } from './wasm/threads.js';

/** A kind of backend that `init` can start, with the threads it is given (the reference backend ignores them). */
interface BackendKind {
  readonly summary: string;
  start(threads: number): Promise<Backend>;
}

/** Every backend `init` can start, by name; a new kind of backend is one entry here. */
const KINDS: Record<string, BackendKind> = {
  js: { summary: 'the reference TypeScript kernels (one thread, float32 and float64)', start: async () => jsBackend },
  wasm: {
    summary: 'WebAssembly SIMD kernels, relaxed-SIMD FMA where the runtime has it, threads on shared memory',
    start: (threads) => createWasmBackend({ threads }),
  },
  webgpu: {
    summary: "WGSL kernels on a GPU (WebGPU: a browser's, or Dawn in Node), training resident on the device; host arrays on the wasm kernels",
    start: async (threads) => createWebGpuBackend({ host: await createWasmBackend({ threads }).catch(() => jsBackend) }),
  },
};

/** Which kind `init()` starts when none is named: the first of these that starts here (a GPU is asked for by name). */
const PREFERENCE: readonly string[] = ['wasm', 'js'];

/** The names `init({ backend })` accepts (the CLI's --backend choices). */
export function backendKinds(): string[] {
  return Object.keys(KINDS);
}

/** One line per backend kind, for help texts. */
export function backendSummaries(): string {
  return Object.entries(KINDS)
    .map(([name, k]) => `${name}: ${k.summary}`)
    .join('; ');
}

export interface InitOptions {
  /** The backend to start (backendKinds()); default: the fastest that starts here, the reference one where nothing else does. */
  backend?: string;
  /** Threads for large products, the calling thread included; default: the cores the runtime reports (os.availableParallelism() in Node, navigator.hardwareConcurrency in a browser). */
  threads?: number;
}

/**
 * Turns on relaxed SIMD where the runtime has it only behind a flag — Node 20's
 * `--experimental-wasm-relaxed-simd`, set here with v8.setFlagsFromString before the kernels
 * are compiled, so that no launcher has to pass it (V8 reads wasm feature flags when it
 * validates a module). Where the runtime ships it (browsers, Node ≥ 22) this does nothing.
 */
async function enableRelaxedSimd(): Promise<void> {
  if (relaxedSimdSupported() || !isNode()) return;
  const specifier = 'node:v8'; // computed: bundlers must not pull a Node built-in into the browser build
  const v8 = (await import(/* @vite-ignore */ specifier)) as typeof import('node:v8');
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
}

let started: { name: string; threads: number; backend: Backend } | undefined;

/**
 * Starts the fast kernels and selects them: the one call a program makes before it trains.
 * Resolves once the backend's worker threads run, so the first training step already uses
 * every core. Calling it again with the same options returns the running backend; other
 * options stop the previous one's threads and start anew. Without `backend` it never fails
 * for want of WebAssembly (the reference backend is selected then); a named backend that
 * cannot start here throws E_BACKEND, bad options throw E_UNKNOWN or E_RANGE.
 *
 *   await init();                           // wasm on every core where it loads
 *   await init({ backend: 'js' });          // the reference kernels
 *   await init({ threads: 1 });             // one thread
 */
export async function init(opts: InitOptions = {}): Promise<Backend> {
  if (opts.backend !== undefined && !KINDS[opts.backend]) throw new UnknownNameError('backend', opts.backend, backendKinds());
  const threads = opts.threads ?? Math.min(MAX_THREADS, await coreCount());
  if (!(Number.isInteger(threads) && threads >= 1 && threads <= MAX_THREADS))
    throw new RangeArgError(`threads must be an integer from 1 to ${MAX_THREADS}, got ${threads}`);
  // the reference kernels run on the calling thread only: asking them for more is refused, not ignored
  if (opts.backend === 'js' && opts.threads !== undefined && opts.threads > 1)
    throw new RangeArgError(
      `the js backend runs on one thread, so ${opts.threads} threads cannot be given to it; threads apply to wasm (and webgpu's host kernels)`,
    );
  const names = opts.backend !== undefined ? [opts.backend] : PREFERENCE;
  if (started && names[0] === started.name && threads === started.threads) return setBackend(started.backend);
  await enableRelaxedSimd();
  let failure: unknown;
  for (const name of names) {
    try {
      const b = await KINDS[name]!.start(threads);
      if (started && started.backend !== b) stop(started.backend);
      started = { name, threads, backend: b };
      registerBackend(b);
      return setBackend(b);
    } catch (e) {
      failure = e;
    }
  }
  throw new ParalensError('E_BACKEND', `backend '${names[0]}' cannot start here: ${(failure as Error).message}`, false);
}

/** Stops a backend's threads (a webgpu backend's are its host backend's). */
function stop(b: Backend): void {
  (b as Partial<WasmBackend>).dispose?.();
  const host = (b as { host?: Backend }).host;
  if (host) stop(host);
}

/** What a backend is, for reports: its name, and for the wasm backend its SIMD flavour and threads. */
export interface BackendInfo {
  name: string;
  simd?: string;
  threads: number;
  /** The GPU of a device backend, and whether it is an emulation (SwiftShader: speed means nothing). */
  device?: string;
  emulated?: boolean;
}

export function backendInfo(b: Backend): BackendInfo {
  const w = b as Backend & Partial<Pick<WasmBackend, 'simd' | 'threads'>>;
  const dev = b.device ? { device: b.device.label, emulated: b.device.emulated } : {};
  return { name: b.name, ...(w.simd ? { simd: w.simd } : {}), threads: w.threads ?? 1, ...dev };
}

/** "wasm, relaxed SIMD, 2 threads"; "webgpu, google swiftshader: SwiftShader driver 5.0.0 (CPU emulation)" */
export function backendLabel(b: Backend): string {
  const i = backendInfo(b);
  if (i.device) return `${i.name}, ${i.device}${i.emulated ? ' (CPU emulation)' : ''}`;
  return [i.name, ...(i.simd ? [`${i.simd} SIMD`] : []), `${i.threads} thread${i.threads === 1 ? '' : 's'}`].join(', ');
}
