import { afterAll, describe, expect, it } from 'vitest';
import { backend, backendNames, getBackendByName, setBackend } from '../../src/tensor/registry.js';
import type { Backend } from '../../src/tensor/backend.js';
import { jsBackend } from '../../src/tensor/js-backend.js';
import { createWasmBackend, loadWasmBackend } from '../../src/tensor/wasm-backend.js';
import { init } from '../../src/tensor/init.js';
import { parseSpec } from '../../src/catalogue/index.js';
import { mse } from '../../src/nn/index.js';
import { moons } from '../../src/data/index.js';
import { train } from '../../src/train/index.js';
import { transformerKernelSuite } from './transformer-kernels-suite.js';
import { backendSuite } from './backend-suite.js';
import { recurrentKernelSuite } from './recurrent-kernels-suite.js';

// Every registered backend ('js', 'wasm' and whatever else registers), plus a wasm backend that
// sends even the smallest calls to wasm and splits every product over two threads, so that the
// copy-in, tiny-shape and thread-sharing paths are all exercised.
await loadWasmBackend();
const eager = await createWasmBackend({ name: 'wasm-eager-2threads', threads: 2, minGemmVolume: 0, minElements: 0, minParallelVolume: 0 });
// and one on a single thread with the module built for ordinary (unshared) memory, as in a page that is not cross-origin isolated
const single = await createWasmBackend({ name: 'wasm-eager-unshared', threads: 1, sharedMemory: false, minGemmVolume: 0, minElements: 0 });
const registered = backendNames().map((n) => getBackendByName(n)!);
afterAll(() => eager.dispose());

backendSuite([...registered, eager, single]);
transformerKernelSuite([...registered, eager, single]);
recurrentKernelSuite([...registered, eager, single]);

describe('selection', () => {
  it('registers js and wasm; init selects wasm', async () => {
    expect(backendNames()).toEqual(expect.arrayContaining(['js', 'wasm']));
    const be = await init();
    expect(be.name).toBe('wasm');
    expect(backend()).toBe(be);
    setBackend('js');
  });

  it('the eager test backends really use two threads and one; only shared memory gives resident arrays', () => {
    expect(eager.threads).toBe(2);
    expect(single.threads).toBe(1);
    expect(eager.alloc!(3)).toEqual(new Float32Array(3));
    expect(single.alloc!(3)).toBeUndefined();
  });

  it('the worker thread runs chunks of shared products, and every chunk is accounted for', () => {
    const m = 256,
      n = 96,
      k = 128,
      a = new Float32Array(m * k).fill(0.5),
      b = new Float32Array(k * n).fill(0.25),
      c = new Float32Array(m * n);
    const before = eager.threadStats();
    // the worker may be descheduled for a product or two on a busy machine; over many it takes part
    for (let i = 0; i < 200 && eager.threadStats().chunksByWorkers === before.chunksByWorkers; i++) eager.gemm(false, false, m, n, k, a, b, c, false);
    const after = eager.threadStats();
    expect(after.chunksByWorkers).toBeGreaterThan(before.chunksByWorkers);
    // op(B) packed in 2 groups of 64 columns, then the rows in chunks of 16 (256 / (8·2)): all 18 taken by someone every time
    expect((after.chunks - before.chunks) / (after.sharedProducts - before.sharedProducts)).toBe(18);
    expect(c.every((v) => v === 0.125 * k)).toBe(true);
  });
});

describe('a model trained on each backend', () => {
  it('gives the same parameters and loss within float32 tolerance after a few epochs', () => {
    const data = moons(256, 0.1, 3);
    const run = (be: Backend) => {
      setBackend(be);
      try {
        return train(parseSpec('dense(2,32) >> tanh >> dense(32,32) >> relu >> dense(32,1) >> sigmoid'), data, {
          loss: mse,
          epochs: 3,
          lr: 0.1,
          batch: 64,
          seed: 1,
        });
      } finally {
        setBackend(jsBackend);
      }
    };
    const ref = run(jsBackend);
    for (const be of [getBackendByName('wasm')!, eager, single]) {
      const r = run(be);
      expect(Math.abs(r.finalLoss - ref.finalLoss)).toBeLessThan(1e-4 * Math.max(1, ref.finalLoss));
      r.theta.forEach((t, i) => {
        const want = ref.theta[i]!.data;
        t.data.forEach((v, j) => expect(Math.abs(v - want[j]!)).toBeLessThan(1e-4));
      });
    }
  });
});
