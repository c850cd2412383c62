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

/**
 * The LSTM's and GRU's sequence kernels share the batch's rows between threads through every step (W_hh
 * packed once by both): the gates, states and gradients must not depend on the thread count —
 * rows not a multiple of the chunk, h not a multiple of 4, truncation, more than one 256-deep block.
 */
describe('wasm lstmSequence, gruSequence and their pullbacks are bit-identical on 1 and 2 threads', () => {
  let one: WasmBackend, two: WasmBackend;
  beforeAll(async () => {
    one = await createWasmBackend({ threads: 1, minGemmVolume: 0, minElements: 0, name: 'det-lstm-1' });
    two = await createWasmBackend({ threads: 2, minGemmVolume: 0, minElements: 0, minParallelVolume: 0, name: 'det-lstm-2' });
  });
  afterAll(() => {
    one?.dispose();
    two?.dispose();
  });

  it.each([
    [33, 13, 5, 2],
    [32, 70, 4, undefined],
    [9, 8, 3, undefined],
  ])('%i rows, h %i, T %i, bptt %s', (rows, h, T, bptt) => {
    const rng = new Rng(rows * 100 + h);
    const G = 4 * h,
      n = rows * h;
    const rand = (len: number, scale = 1) => Float32Array.from({ length: len }, () => rng.normal() * scale);
    const w = rand(G * h, 1 / Math.sqrt(h)),
      z = rand(T * rows * G),
      hs = rand((T + 1) * n),
      cs = rand((T + 1) * n),
      dy = rand(T * n),
      dh = rand(n),
      dc = rand(n);
    const run = (be: WasmBackend) => {
      const out = { z: z.slice(), hs: hs.slice(), cs: cs.slice(), dh: dh.slice(), dc: dc.slice(), dz: new Float32Array(T * rows * G) };
      be.lstmSequence(rows, h, T, w, out.z, out.hs, out.cs);
      be.lstmSequenceBackward(rows, h, T, w, out.z, out.cs, dy, out.dh, out.dc, out.dz, bptt);
      // the GRU's sequences on the first 3h rows of W_hh and of each step's block
      const g = {
        xg: z.slice(0, T * rows * 3 * h),
        hg: new Float32Array(T * rows * 3 * h),
        hs: hs.slice(),
        dh: dh.slice(),
        dxg: new Float32Array(T * rows * 3 * h),
        dhg: new Float32Array(T * rows * 3 * h),
      };
      const w3 = w.subarray(0, 3 * h * h),
        b3 = dc.subarray(0, 3 * h);
      be.gruSequence(rows, h, T, w3, b3, g.xg, g.hg, g.hs);
      be.gruSequenceBackward(rows, h, T, w3, g.xg, g.hg, g.hs, dy, g.dh, g.dxg, g.dhg, bptt);
      return { ...out, gru: g };
    };
    const before = two.threadStats().sharedProducts;
    const a = run(one),
      b = run(two);
    if (two.threads > 1) expect(two.threadStats().sharedProducts).toBe(before + 4);
    const same = (x: Float32Array, y: Float32Array) =>
      Buffer.from(x.buffer, x.byteOffset, x.byteLength).equals(Buffer.from(y.buffer, y.byteOffset, y.byteLength));
    for (const key of ['z', 'hs', 'cs', 'dh', 'dc', 'dz'] as const) expect(same(b[key], a[key]), `lstm ${key}`).toBe(true);
    for (const key of ['xg', 'hg', 'hs', 'dh', 'dxg', 'dhg'] as const) expect(same(b.gru[key], a.gru[key]), `gru ${key}`).toBe(true);
  });
});
