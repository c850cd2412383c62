// The kernels of the transformer layers (Backend.gemmBatched, attentionSoftmax,
// attentionSoftmaxBackward, layerNorm, layerNormBackward, rotatePairs, gatherRows, scatterRows,
// lossGrad's token-cross-entropy) on every backend, against plain float64 computations, within
// float32 tolerance; a device backend through its mirror (device-mirror.ts), settling before
// each comparison.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MatrixBatch } from '../../src/tensor/backend.js';
import { Rng } from '../../src/random/rng.js';
import { lossGradRows } from '../../src/tensor/rows.js';
import { naiveGemm, randomF32 } from './backend-suite.js';
import type { SuiteBackend } from './backend-suite.js';

const close = (got: ArrayLike<number>, want: ArrayLike<number>, tol: number, what: string): void => {
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= tol * (1 + Math.abs(want[i]!)))) throw new Error(`${what}: element ${i} is ${got[i]} but should be ${want[i]}`);
  }
};

/** Matrix (o, i) of a batch copied out densely (m×n, rows ld apart). */
function take(x: ArrayLike<number>, at: number, rows: number, cols: number, ld: number): Float64Array {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = x[at + r * ld + c]!;
  return out;
}

/** softmax(scale·s + bias) per row over the keys a (causal) query sees, in float64. */
function naiveSoftmax(
  s: ArrayLike<number>,
  blocks: number,
  Tq: number,
  Tk: number,
  scale: number,
  causal: boolean,
  qOffset: number,
  bias: ArrayLike<number> | undefined,
  heads: number,
): Float64Array {
  const out = new Float64Array(blocks * Tq * Tk);
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < Tq; i++) {
      const o = (b * Tq + i) * Tk,
        seen = causal ? Math.max(0, Math.min(Tk, i + qOffset + 1)) : Tk;
      const v = Array.from({ length: seen }, (_, j) => scale * s[o + j]! + (bias ? bias[((b % heads) * Tq + i) * Tk + j]! : 0));
      const mx = Math.max(...v);
      const e = v.map((x) => Math.exp(x - mx)),
        z = e.reduce((a, c) => a + c, 0);
      e.forEach((x, j) => (out[o + j] = x / z));
    }
  }
  return out;
}

const settle = async (be: SuiteBackend): Promise<void> => be.settle?.();

export function transformerKernelSuite(backends: readonly SuiteBackend[]): void {
  describe.each(backends.map((b) => [b.name, b] as const))('transformer kernels on %s', (_name, be) => {
    it('gemmBatched: random shapes, transposes, interleaved heads and strided batches agree with per-matrix products', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 9 }),
          fc.integer({ min: 1, max: 9 }),
          fc.integer({ min: 0, max: 9 }),
          fc.integer({ min: 1, max: 3 }),
          fc.integer({ min: 1, max: 4 }),
          fc.boolean(),
          fc.boolean(),
          fc.boolean(),
          fc.nat(),
          async (m, n, k, outer, inner, tA, tB, acc, seed) => {
            const rng = new Rng(seed);
            // A and B interleave their `inner` matrices along rows (like heads in [T, heads·dh]); C is dense
            const aRows = tA ? k : m,
              aCols = tA ? m : k,
              bRows = tB ? n : k,
              bCols = tB ? k : n;
            const a: MatrixBatch = { data: randomF32(outer * aRows * inner * aCols + 3, rng), ld: inner * aCols, outer: aRows * inner * aCols, inner: aCols };
            const b: MatrixBatch = { data: randomF32(outer * bRows * inner * bCols + 5, rng), ld: inner * bCols, outer: bRows * inner * bCols, inner: bCols };
            const c: MatrixBatch = { data: randomF32(outer * inner * m * n, rng), ld: n, outer: inner * m * n, inner: m * n };
            const c0 = Float32Array.from(c.data);
            be.gemmBatched(tA, tB, m, n, k, a, b, c, [outer, inner], acc);
            await settle(be);
            for (let o = 0; o < outer; o++) {
              for (let i = 0; i < inner; i++) {
                const A = take(a.data, o * a.outer + i * a.inner, aRows, aCols, a.ld),
                  B = take(b.data, o * b.outer + i * b.inner, bRows, bCols, b.ld);
                const at = o * c.outer + i * c.inner;
                const want = naiveGemm(tA, tB, m, n, k, A, B, acc ? c0.subarray(at, at + m * n) : undefined).c;
                close(c.data.subarray(at, at + m * n), want, 1e-5, `product (${o},${i})`);
              }
            }
          },
        ),
        { numRuns: 60 },
      );
    });

    it('gemmBatched writes only the matrices of the batch (C interleaved, others untouched)', async () => {
      const rng = new Rng(3);
      const m = 5,
        n = 4,
        k = 6,
        heads = 3;
      const a: MatrixBatch = { data: randomF32(2 * m * heads * k, rng), ld: heads * k, outer: m * heads * k, inner: k };
      const b: MatrixBatch = { data: randomF32(2 * k * heads * n, rng), ld: heads * n, outer: k * heads * n, inner: n };
      // C has room for 4 heads per row: the 4th column block must keep its values
      const c: MatrixBatch = { data: randomF32(2 * m * 4 * n, rng), ld: 4 * n, outer: m * 4 * n, inner: n };
      const before = Float32Array.from(c.data);
      be.gemmBatched(false, false, m, n, k, a, b, c, [2, heads], false);
      await settle(be);
      for (let o = 0; o < 2; o++)
        for (let r = 0; r < m; r++)
          for (let j = 3 * n; j < 4 * n; j++) {
            const at = o * c.outer + r * c.ld + j;
            expect(c.data[at]).toBe(before[at]);
          }
    });

    it('attentionSoftmax: scale, per-head bias, causal mask with a query offset; rows that see nothing are zero', async () => {
      const rng = new Rng(4);
      for (const [blocks, Tq, Tk, causal, qOffset, heads, withBias] of [
        [6, 5, 5, true, 0, 3, true],
        [4, 3, 7, true, 4, 2, false],
        [2, 9, 9, false, 0, 1, true],
        [3, 2, 6, true, -1, 3, true],
        [8, 1, 13, true, 12, 4, false],
        [2, 33, 33, true, 0, 2, true],
      ] as const) {
        const s = randomF32(blocks * Tq * Tk, rng, 4);
        const bias = withBias ? randomF32(heads * Tq * Tk, rng) : undefined;
        const want = naiveSoftmax(s, blocks, Tq, Tk, 0.7, causal, qOffset, bias, heads);
        be.attentionSoftmax(s, blocks, Tq, Tk, 0.7, causal, qOffset, bias, heads);
        await settle(be);
        close(s, want, 2e-6, `softmax ${blocks}×${Tq}×${Tk}`);
      }
    });

    it('attentionSoftmaxBackward is scale·p ⊙ (dp − ⟨dp, p⟩) per row', async () => {
      const rng = new Rng(5);
      for (const [rows, n] of [
        [1, 1],
        [3, 7],
        [10, 64],
        [5, 33],
      ] as const) {
        const p = randomF32(rows * n, rng),
          dp = randomF32(rows * n, rng);
        const want = new Float64Array(rows * n);
        for (let r = 0; r < rows; r++) {
          let dot = 0;
          for (let j = 0; j < n; j++) dot += p[r * n + j]! * dp[r * n + j]!;
          for (let j = 0; j < n; j++) want[r * n + j] = 0.25 * p[r * n + j]! * (dp[r * n + j]! - dot);
        }
        be.attentionSoftmaxBackward(p, dp, rows, n, 0.25);
        await settle(be);
        close(dp, want, 2e-6, `softmax pullback ${rows}×${n}`);
      }
    });

    it('layerNorm and its pullback (layernorm and rmsnorm; d a multiple of 4 and not), against float64', async () => {
      const rng = new Rng(6);
      for (const [rows, d, centre, withBias] of [
        [5, 8, true, true],
        [3, 7, true, false],
        [4, 13, false, false],
        [64, 64, true, true],
      ] as const) {
        const x = randomF32(rows * d, rng, 3),
          g = randomF32(d, rng),
          b = withBias ? randomF32(d, rng) : undefined,
          dy = randomF32(rows * d, rng);
        const y = new Float32Array(rows * d),
          xhat = new Float32Array(rows * d),
          r = new Float32Array(rows);
        be.layerNorm(x, rows, d, g, b, 1e-5, centre, y, xhat, r);
        const dx = new Float32Array(rows * d),
          dg = randomF32(d, rng),
          db = randomF32(d, rng);
        const dg0 = Float64Array.from(dg),
          db0 = Float64Array.from(db);
        be.layerNormBackward(dy, xhat, r, rows, d, g, centre, dx, dg, db);
        await settle(be);
        const wy = new Float64Array(rows * d),
          wdx = new Float64Array(rows * d);
        for (let i = 0; i < rows; i++) {
          const row = Array.from(x.subarray(i * d, (i + 1) * d));
          const mu = centre ? row.reduce((a, v) => a + v, 0) / d : 0;
          const s = 1 / Math.sqrt(row.reduce((a, v) => a + (v - mu) ** 2, 0) / d + 1e-5);
          const h = row.map((v) => (v - mu) * s);
          const gh = h.map((_, j) => dy[i * d + j]! * g[j]!);
          const mg = centre ? gh.reduce((a, v) => a + v, 0) / d : 0,
            mgx = gh.reduce((a, v, j) => a + v * h[j]!, 0) / d;
          h.forEach((v, j) => {
            wy[i * d + j] = g[j]! * v + (b ? b[j]! : 0);
            wdx[i * d + j] = (gh[j]! - mg - v * mgx) * s;
            dg0[j]! += dy[i * d + j]! * v;
            db0[j]! += dy[i * d + j]!;
          });
        }
        close(y, wy, 2e-5, `layerNorm y ${rows}×${d}`);
        close(dx, wdx, 2e-4, `layerNorm dx ${rows}×${d}`);
        close(dg, dg0, 2e-5, `layerNorm dg ${rows}×${d}`);
        if (withBias) close(db, db0, 2e-5, `layerNorm db ${rows}×${d}`);
      }
    });

    it('layerNormBackward writes only the outputs it is given (dx alone, dg alone)', async () => {
      const rng = new Rng(7);
      const rows = 6,
        d = 5,
        x = randomF32(rows * d, rng, 2),
        g = randomF32(d, rng),
        dy = randomF32(rows * d, rng);
      const y = new Float32Array(rows * d),
        xhat = new Float32Array(rows * d),
        r = new Float32Array(rows);
      be.layerNorm(x, rows, d, g, undefined, 1e-5, true, y, xhat, r);
      await settle(be);
      const dxAll = new Float32Array(rows * d),
        dgAll = new Float32Array(d),
        dbAll = new Float32Array(d);
      be.layerNormBackward(dy, xhat, r, rows, d, g, true, dxAll, dgAll, dbAll);
      const dxOnly = new Float32Array(rows * d),
        dgOnly = new Float32Array(d);
      be.layerNormBackward(dy, xhat, r, rows, d, g, true, dxOnly, undefined, undefined);
      be.layerNormBackward(dy, xhat, r, rows, d, g, true, undefined, dgOnly, undefined);
      await settle(be);
      close(dxOnly, dxAll, 1e-6, 'dx alone');
      close(dgOnly, dgAll, 1e-6, 'dg alone');
      expect(dbAll.some((v) => v !== 0)).toBe(true);
    });

    it("rotatePairs rotates each pair of each head by its position's angle, and inverse undoes it", async () => {
      const rng = new Rng(8);
      for (const [count, T, groups, half] of [
        [1, 1, 1, 1],
        [2, 5, 3, 2],
        [3, 17, 4, 8],
      ] as const) {
        const d = 2 * groups * half,
          x = randomF32(count * T * d, rng),
          x0 = Float64Array.from(x);
        const theta = Float64Array.from({ length: T * half }, () => (rng.uniform() * 2 - 1) * 40);
        const rot = { T, half, cos: theta.map(Math.cos), sin: theta.map(Math.sin) };
        be.rotatePairs(x, count, d, rot, groups, false);
        await settle(be);
        const want = new Float64Array(x0.length);
        for (let s = 0; s < count; s++)
          for (let t = 0; t < T; t++)
            for (let g = 0; g < groups; g++)
              for (let i = 0; i < half; i++) {
                const o = (s * T + t) * d + 2 * (g * half + i),
                  th = theta[t * half + i]!;
                want[o] = x0[o]! * Math.cos(th) - x0[o + 1]! * Math.sin(th);
                want[o + 1] = x0[o]! * Math.sin(th) + x0[o + 1]! * Math.cos(th);
              }
        close(x, want, 1e-6, `rotation ${count}×${T}×${d}`);
        be.rotatePairs(x, count, d, rot, groups, true);
        await settle(be);
        close(x, x0, 1e-6, `inverse rotation ${count}×${T}×${d}`);
      }
    });

    it('gatherRows looks rows up by id; scatterRows adds them back, repeated ids summed', async () => {
      const rng = new Rng(9);
      const V = 7,
        d = 5,
        ids = Float32Array.from([3, 0, 6, 3, 3, 1, 6]),
        table = randomF32(V * d, rng),
        y = new Float32Array(ids.length * d);
      be.gatherRows(ids, table, d, y);
      await settle(be);
      ids.forEach((id, i) => close(y.subarray(i * d, (i + 1) * d), table.subarray(id * d, (id + 1) * d), 0, `row ${i}`));
      const dy = randomF32(ids.length * d, rng),
        dT = randomF32(V * d, rng),
        want = Float64Array.from(dT);
      ids.forEach((id, i) => {
        for (let j = 0; j < d; j++) want[id * d + j]! += dy[i * d + j]!;
      });
      be.scatterRows(dy, ids, d, dT);
      await settle(be);
      close(dT, want, 1e-6, 'scattered rows');
    });

    it('lossGrad token-cross-entropy (one id per row) is softmax cross-entropy against the one-hot rows', async () => {
      const rng = new Rng(10);
      const rows = 41,
        V = 13,
        z = randomF32(rows * V, rng, 5),
        ids = Float32Array.from({ length: rows }, () => Math.floor(rng.uniform() * V));
      const grad = new Float32Array(rows * V),
        rowLoss = new Float32Array(rows);
      be.lossGrad('token-cross-entropy', z, ids, rows, V, grad, rowLoss);
      await settle(be);
      const oneHot = new Float64Array(rows * V);
      ids.forEach((id, r) => (oneHot[r * V + id] = 1));
      const wantG = new Float64Array(rows * V),
        wantL = new Float64Array(rows);
      lossGradRows('softmax-cross-entropy', Float64Array.from(z), oneHot, rows, V, wantG, wantL);
      close(rowLoss, wantL, 1e-5, 'row losses');
      close(grad, wantG, 1e-5, 'gradient');
    });
  });
}
