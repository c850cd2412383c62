import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../src/index.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';
import type { WasmBackend } from '../../src/tensor/wasm-backend.js';

/**
 * The same seed gives the same bits whatever the thread count: a product cut into chunks
 * between threads must equal, bit for bit, the same product on one thread — including a
 * last chunk of a single row or column (m ≡ 1 mod the chunk size).
 */
describe('wasm gemm is bit-identical on 1 and 2 threads', () => {
  let one: WasmBackend, two: WasmBackend;
  beforeAll(async () => {
    one = await createWasmBackend({ threads: 1, minGemmVolume: 0, name: 'det-1' });
    two = await createWasmBackend({ threads: 2, minGemmVolume: 0, minParallelVolume: 0, name: 'det-2' });
  });
  afterAll(() => {
    one?.dispose();
    two?.dispose();
  });

  it.each([
    [97, 64, 784, false, true],
    [33, 33, 256, false, false],
    [96, 64, 784, false, true],
    [8, 97, 300, false, false],
    [8, 33, 300, true, true],
    [129, 17, 64, true, false],
  ])('%i×%i×%i (transA %s, transB %s)', (m, n, k, ta, tb) => {
    const rng = new Rng(m * 1000 + n);
    const a = Float32Array.from({ length: m * k }, () => rng.normal());
    const b = Float32Array.from({ length: k * n }, () => rng.normal());
    const c1 = new Float32Array(m * n),
      c2 = new Float32Array(m * n);
    one.gemm(ta, tb, m, n, k, a, b, c1, false);
    two.gemm(ta, tb, m, n, k, a, b, c2, false);
    if (two.threads > 1) expect(two.threadStats().sharedProducts).toBeGreaterThan(0);
    expect(Buffer.from(c2.buffer).equals(Buffer.from(c1.buffer))).toBe(true);
  });
});
