import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsBackend } from '../../src/tensor/index.js';
import type { UnaryOp } from '../../src/tensor/index.js';
import { createWasmBackend } from '../../src/tensor/wasm-backend.js';
import type { WasmBackend } from '../../src/tensor/wasm-backend.js';

/** The wasm kernels (thresholds off, so every call runs in wasm) agree with the reference at the edges of float32: overflow included. */
describe('wasm elementwise kernels at extreme inputs', () => {
  let be: WasmBackend;
  beforeAll(async () => {
    be = await createWasmBackend({ threads: 1, minElements: 0, minGemmVolume: 0, name: 'extremes' });
  });
  afterAll(() => be?.dispose());

  const xs = Float32Array.from([0, 1, -1, 20, -20, 80, -80, 87.9, 88.1, 88.5, 88.7, 88.73, 89, 100, 1e4, -88.5, -100, -1e4]);
  it.each(['exp', 'sigmoid', 'tanh', 'softplus', 'gelu', 'relu'] as UnaryOp[])('%s', (op) => {
    const a = new Float32Array(xs.length),
      b = new Float32Array(xs.length);
    be.unary(op, xs, a);
    jsBackend.unary(op, xs, b);
    for (let i = 0; i < xs.length; i++) {
      if (!Number.isFinite(b[i]!)) expect(a[i], `${op}(${xs[i]})`).toBe(b[i]);
      else expect(Math.abs(a[i]! - b[i]!), `${op}(${xs[i]}): ${a[i]} vs ${b[i]}`).toBeLessThanOrEqual(1e-5 * Math.abs(b[i]!) + 1e-30);
    }
  });
});
