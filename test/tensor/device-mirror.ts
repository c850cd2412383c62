// The backend suite's view of a device backend: a Backend over host arrays whose every call
// copies its float32 arguments to device arrays (one per distinct view, kept until `settle`),
// runs the device kernels, and — at `settle` — reads the outputs back into the host arrays.
// So the one suite (backend-suite.ts) checks the device kernels with the same assertions as
// the host backends, waiting for the results where a device needs it.
import type { Backend, DeviceMemory } from '../../src/tensor/backend.js';

/** Which arguments each kernel writes (positions in its parameter list; an absent optional output is skipped, a MatrixBatch's data is the array). */
const OUTPUTS: Record<string, readonly number[]> = {
  gemm: [7],
  unary: [2],
  unaryBackward: [4],
  addRowVector: [4],
  sumRows: [3],
  axpy: [2],
  adam: [0, 2, 3],
  im2col: [4],
  col2im: [4],
  maxPool: [3, 4],
  avgPool: [3],
  avgPoolBackward: [3],
  scatterAdd: [2],
  swapAxes: [4],
  fill: [0],
  copyRows: [4],
  softmax: [3],
  softmaxBackward: [4],
  lossGrad: [5, 6],
  argmaxRows: [4],
  gemmBatched: [7],
  attentionSoftmax: [0],
  attentionSoftmaxBackward: [1],
  layerNorm: [7, 8, 9],
  layerNormBackward: [7, 8, 9],
  rotatePairs: [0],
  gatherRows: [3],
  scatterRows: [3],
};

/** The float32 array an argument is or holds (a MatrixBatch's data), if any. */
const arrayOf = (a: unknown): Float32Array | undefined =>
  a instanceof Float32Array
    ? a
    : a && typeof a === 'object' && (a as { data?: unknown }).data instanceof Float32Array
      ? (a as { data: Float32Array }).data
      : undefined;

export interface SettlingBackend extends Backend {
  /** Resolves once every output of the calls so far is in its host array. */
  settle(): Promise<void>;
  /** allFinite on the device (markNonFinite, then a readback). */
  finite(x: Float32Array): Promise<boolean>;
}

export function deviceMirror(be: Backend & { device: DeviceMemory }): SettlingBackend {
  const dev = be.device;
  const ids = new WeakMap<ArrayBufferLike, number>();
  let nextId = 0;
  let views = new Map<string, { host: Float32Array; device: Float32Array }>();
  let written = new Set<string>();
  const keyOf = (x: Float32Array): string => {
    if (!ids.has(x.buffer)) ids.set(x.buffer, nextId++);
    return `${ids.get(x.buffer)}:${x.byteOffset}:${x.length}`;
  };
  const onDevice = (x: Float32Array): Float32Array => {
    const k = keyOf(x);
    let v = views.get(k);
    if (!v) {
      v = { host: x, device: dev.alloc(x.length) };
      dev.write(v.device, x);
      views.set(k, v);
    }
    return v.device;
  };
  const mirror: Record<string, unknown> = { name: `${be.name} (device arrays)`, device: dev };
  for (const [name, outs] of Object.entries(OUTPUTS)) {
    mirror[name] = (...args: unknown[]) => {
      const kernel = (be as unknown as Record<string, (...a: unknown[]) => unknown>)[name]!;
      if (args.some((a) => a instanceof Float64Array)) return kernel(...args); // the host's: float64 never goes to the device
      const mapped = args.map((a) => (a instanceof Float32Array ? onDevice(a) : arrayOf(a) ? { ...(a as object), data: onDevice(arrayOf(a)!) } : a));
      for (const i of outs) if (arrayOf(args[i])) written.add(keyOf(arrayOf(args[i])!));
      return kernel(...mapped);
    };
  }
  mirror.allFinite = (x: Float32Array | Float64Array) => {
    if (x instanceof Float32Array) throw new Error('a device answers allFinite asynchronously: use finite()');
    return be.allFinite(x);
  };
  mirror.settle = async () => {
    const pending = [...written].map((k) => views.get(k)!);
    views = new Map();
    written = new Set();
    const values = await Promise.all(pending.map((v) => dev.read(v.device)));
    pending.forEach((v, i) => v.host.set(values[i]!));
  };
  mirror.finite = async (x: Float32Array) => {
    const flag = dev.alloc(1);
    be.fill(flag, 1);
    dev.markNonFinite(onDevice(x), flag);
    const [f] = await dev.read(flag);
    views = new Map();
    return f === 1;
  };
  return mirror as unknown as SettlingBackend;
}
