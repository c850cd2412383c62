// The one backend test suite (tfjs-core style: the same spec runs on every backend).
// Each kernel is compared with a naive float64 computation within float32 tolerance.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Backend, UnaryOp } from '../../src/tensor/backend.js';
import { applyUnary, unaryDerivative } from '../../src/tensor/js-backend.js';
import { lossGradRows } from '../../src/tensor/rows.js';
import { Rng } from '../../src/random/rng.js';
import { makeWindow } from '../../src/tensor/window.js';
import type { Window } from '../../src/tensor/window.js';

export const UNARY_OPS: readonly UnaryOp[] = ['identity', 'sigmoid', 'tanh', 'relu', 'gelu', 'softplus', 'exp', 'neg', 'square'];
const F32_EPS = 2 ** -23;

export function randomF32(n: number, rng: Rng, scale = 1): Float32Array {
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = (rng.uniform() * 2 - 1) * scale;
  return x;
}

/** op(A)·op(B) (+C0) in float64, and Σ|a||b| per entry (for the rounding-error bound). */
export function naiveGemm(
  tA: boolean,
  tB: boolean,
  m: number,
  n: number,
  k: number,
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  c0?: ArrayLike<number>,
): { c: Float64Array; mag: Float64Array } {
  const c = new Float64Array(m * n),
    mag = new Float64Array(m * n);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = c0 ? c0[i * n + j]! : 0,
        t = c0 ? Math.abs(c0[i * n + j]!) : 0;
      for (let p = 0; p < k; p++) {
        const x = tA ? a[p * m + i]! : a[i * k + p]!,
          y = tB ? b[j * k + p]! : b[p * n + j]!;
        s += x * y;
        t += Math.abs(x * y);
      }
      c[i * n + j] = s;
      mag[i * n + j] = t;
    }
  }
  return { c, mag };
}

/** Largest |got − want| / (γ·mag + 1e-30) over entries, γ = (k+2)·ε32: ≤ 1 means within the float32 error bound. */
function boundRatio(got: ArrayLike<number>, want: Float64Array, mag: Float64Array, k: number): number {
  let worst = 0;
  const gamma = (k + 2) * F32_EPS;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i]! - want[i]!) / (gamma * mag[i]! + 1e-30));
  return worst;
}

function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, rel: number, abs: number, what: string): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const err = Math.abs(got[i]! - want[i]!);
    if (!(err <= abs + rel * Math.abs(want[i]!))) throw new Error(`${what}: element ${i} is ${got[i]} but should be ${want[i]} (error ${err})`);
  }
}

const TRANSPOSES = [
  [false, false],
  [true, false],
  [false, true],
  [true, true],
] as const;
// m, n, k: 1×1, k = 0 and 1, odd sizes around the 4×8 register tile and the 256-deep block, thin and wide
const SIZES: readonly [number, number, number][] = [
  [1, 1, 1],
  [1, 1, 0],
  [3, 5, 0],
  [1, 7, 1],
  [2, 3, 1],
  [3, 1, 5],
  [4, 4, 4],
  [4, 8, 2],
  [5, 7, 3],
  [8, 8, 8],
  [13, 17, 19],
  [16, 16, 16],
  [33, 65, 31],
  [40, 9, 0],
  [64, 64, 64],
  [129, 67, 257],
  [4, 300, 600],
  [300, 5, 70],
  [97, 211, 513],
];

// Inputs near where the approximations switch formulas (|x| = 0.625 for tanh), near 0, and large.
const UNARY_INPUTS = Float32Array.from([0, -0, 1e-7, -1e-7, 0.3, -0.3, 0.624, 0.626, -0.626, 1, -1, 2.5, -2.5, 6, -6, 15, -15, 30, -30, 80, -80]);

function unaryInputs(n: number, rng: Rng): Float32Array {
  const x = randomF32(n, rng, 6);
  x.set(UNARY_INPUTS.subarray(0, Math.min(n, UNARY_INPUTS.length)));
  return x;
}

/** Tolerance of f(x) in float32: exp and square grow, so relative; the rest are bounded, so absolute + relative. */
function unaryTol(op: UnaryOp): { rel: number; abs: number } {
  return op === 'exp' || op === 'square' ? { rel: 4e-6, abs: 1e-30 } : { rel: 4e-6, abs: 4e-7 };
}

/** A backend under test; a device backend's mirror (device-mirror.ts) also says when its results have landed in the host arrays. */
export type SuiteBackend = Backend & { settle?(): Promise<void>; finite?(x: Float32Array): Promise<boolean> };

/** Waits until the outputs of the calls so far are in their host arrays (at once for host backends). */
const settle = async (be: SuiteBackend): Promise<void> => be.settle?.();
const finite = async (be: SuiteBackend, x: Float32Array): Promise<boolean> => (be.finite ? be.finite(x) : be.allFinite(x));

export function backendSuite(backends: readonly SuiteBackend[]): void {
  describe.each(backends.map((b) => [b.name, b] as const))('backend %s', (_name, be) => {
    describe('gemm', () => {
      it.each(TRANSPOSES)('transA=%s transB=%s at every size, within the float32 error bound of the float64 product', async (tA, tB) => {
        const rng = new Rng(7);
        for (const [m, n, k] of SIZES) {
          const a = randomF32(m * k, rng),
            b = randomF32(k * n, rng);
          const c = randomF32(m * n, rng); // garbage that must be overwritten
          be.gemm(tA, tB, m, n, k, a, b, c, false);
          await settle(be);
          const { c: want, mag } = naiveGemm(tA, tB, m, n, k, a, b);
          const r = boundRatio(c, want, mag, k);
          if (!(r <= 1)) throw new Error(`gemm ${m}×${n}×${k} tA=${tA} tB=${tB}: error ${r.toFixed(2)}× the float32 bound`);
        }
      });

      it.each(TRANSPOSES)('accumulate adds to C (transA=%s transB=%s), including k = 0', async (tA, tB) => {
        const rng = new Rng(11);
        for (const [m, n, k] of SIZES) {
          const a = randomF32(m * k, rng),
            b = randomF32(k * n, rng),
            c0 = randomF32(m * n, rng);
          const c = c0.slice();
          be.gemm(tA, tB, m, n, k, a, b, c, true);
          await settle(be);
          const { c: want, mag } = naiveGemm(tA, tB, m, n, k, a, b, c0);
          expect(boundRatio(c, want, mag, k)).toBeLessThanOrEqual(1);
        }
      });

      it('works on subarray views and leaves memory outside C untouched', async () => {
        const rng = new Rng(3);
        const m = 37,
          n = 45,
          k = 29;
        const abuf = randomF32(m * k + 5, rng),
          bbuf = randomF32(k * n + 3, rng),
          cbuf = randomF32(m * n + 10, rng);
        const before = cbuf.slice();
        const a = abuf.subarray(5),
          b = bbuf.subarray(3),
          c = cbuf.subarray(4, 4 + m * n);
        be.gemm(false, true, m, n, k, a, b, c, false);
        await settle(be);
        const { c: want, mag } = naiveGemm(false, true, m, n, k, a, b);
        expect(boundRatio(c, want, mag, k)).toBeLessThanOrEqual(1);
        expect(Array.from(cbuf.subarray(0, 4))).toEqual(Array.from(before.subarray(0, 4)));
        expect(Array.from(cbuf.subarray(4 + m * n))).toEqual(Array.from(before.subarray(4 + m * n)));
      });

      it('property: random shapes and transposes agree with the float64 product', async () => {
        await fc.assert(
          fc.asyncProperty(
            fc.integer({ min: 1, max: 40 }),
            fc.integer({ min: 1, max: 40 }),
            fc.integer({ min: 0, max: 70 }),
            fc.boolean(),
            fc.boolean(),
            fc.boolean(),
            fc.integer({ min: 0, max: 1e6 }),
            async (m, n, k, tA, tB, acc, seed) => {
              const rng = new Rng(seed);
              const a = randomF32(m * k, rng),
                b = randomF32(k * n, rng),
                c0 = randomF32(m * n, rng);
              const c = c0.slice();
              be.gemm(tA, tB, m, n, k, a, b, c, acc);
              await settle(be);
              const { c: want, mag } = naiveGemm(tA, tB, m, n, k, a, b, acc ? c0 : undefined);
              return boundRatio(c, want, mag, k) <= 1;
            },
          ),
          { numRuns: 60 },
        );
      });

      it('float64 arguments give the float64 product', async () => {
        const rng = new Rng(5);
        const m = 9,
          n = 11,
          k = 13;
        const a = Float64Array.from(randomF32(m * k, rng)),
          b = Float64Array.from(randomF32(k * n, rng)),
          c = new Float64Array(m * n);
        be.gemm(true, false, m, n, k, a, b, c, false);
        await settle(be);
        expectClose(c, naiveGemm(true, false, m, n, k, a, b).c, 1e-12, 1e-12, 'float64 gemm');
      });
    });

    describe.each(UNARY_OPS)('unary op %s', (op) => {
      const tol = unaryTol(op);

      it('forward matches the scalar definition (lengths 1, 7, 1031; in place too)', async () => {
        const rng = new Rng(13);
        for (const n of [1, 7, 1031]) {
          const x = unaryInputs(n, rng);
          const want = Array.from(x, (v) => Math.fround(applyUnary(op, v)));
          const out = new Float32Array(n);
          be.unary(op, x, out);
          await settle(be);
          expectClose(out, want, tol.rel, tol.abs, `${op}(x), n=${n}`);
          be.unary(op, x, x);
          await settle(be);
          expectClose(x, want, tol.rel, tol.abs, `${op}(x) in place, n=${n}`);
        }
      });

      it('backward: dx (+)= dy·f′(x), with dx aliasing dy too', async () => {
        const rng = new Rng(17);
        for (const n of [1, 7, 1031]) {
          const x = unaryInputs(n, rng);
          const y = Float32Array.from(x, (v) => applyUnary(op, v));
          const dy = randomF32(n, rng),
            dx0 = randomF32(n, rng);
          const g = Array.from(x, (v, i) => dy[i]! * unaryDerivative(op, v, y[i]!));
          const grad = (i: number): number => g[i]!;
          const dxSet = new Float32Array(n),
            dxAcc = dx0.slice();
          be.unaryBackward(op, x, y, dy, dxSet, false);
          await settle(be);
          be.unaryBackward(op, x, y, dy, dxAcc, true);
          await settle(be);
          // the derivative is evaluated at float32 y, so allow float32 rounding of f′ relative to |dy|
          const tolAt = (i: number): number => 1e-6 * Math.abs(dy[i]!) * (1 + Math.abs(unaryDerivative(op, x[i]!, y[i]!)));
          for (let i = 0; i < n; i++) {
            expect(Math.abs(dxSet[i]! - grad(i))).toBeLessThanOrEqual(tolAt(i) + 4e-6 * Math.abs(grad(i)));
            expect(Math.abs(dxAcc[i]! - (dx0[i]! + grad(i)))).toBeLessThanOrEqual(tolAt(i) + 4e-6 * Math.abs(grad(i)) + 1e-7);
          }
          const alias = dy.slice();
          be.unaryBackward(op, x, y, alias, alias, false);
          await settle(be);
          expectClose(alias, dxSet, 1e-6, 1e-7, `${op}′ with dx = dy`);
        }
      });

      it('addRowVector fuses bias and activation: out = f(x + v)', async () => {
        const rng = new Rng(19);
        for (const [rows, cols] of [
          [1, 1],
          [3, 5],
          [64, 33],
        ] as const) {
          const x = randomF32(rows * cols, rng, 3),
            v = randomF32(cols, rng, 3);
          const want = Array.from(x, (xi, i) => Math.fround(applyUnary(op, Math.fround(xi + v[i % cols]!))));
          const out = new Float32Array(rows * cols);
          be.addRowVector(x, v, rows, cols, out, op);
          await settle(be);
          expectClose(out, want, tol.rel, tol.abs, `addRowVector ${rows}×${cols} ${op}`);
          be.addRowVector(x, v, rows, cols, x, op); // in place, as dense does
          await settle(be);
          expectClose(x, want, tol.rel, tol.abs, `addRowVector in place ${rows}×${cols} ${op}`);
        }
      });

      it('float64 arguments are exact to float64', async () => {
        const x = Float64Array.from([-2, -0.5, 0, 0.5, 2]);
        const out = new Float64Array(5);
        be.unary(op, x, out);
        await settle(be);
        expectClose(
          out,
          Array.from(x, (v) => applyUnary(op, v)),
          1e-14,
          1e-15,
          `float64 ${op}`,
        );
      });
    });

    describe('reductions', () => {
      it('sumRows: out (+)= Σ_rows x', async () => {
        const rng = new Rng(23);
        for (const [rows, cols] of [
          [1, 1],
          [5, 3],
          [200, 37],
          [1000, 8],
        ] as const) {
          const x = randomF32(rows * cols, rng),
            out0 = randomF32(cols, rng);
          const want = new Float64Array(cols);
          for (let r = 0; r < rows; r++) for (let j = 0; j < cols; j++) want[j]! += x[r * cols + j]!;
          const out = out0.slice();
          be.sumRows(x, rows, cols, out, false);
          await settle(be);
          expectClose(out, want, 0, rows * 1e-6, `sumRows ${rows}×${cols}`);
          const acc = out0.slice();
          be.sumRows(x, rows, cols, acc, true);
          await settle(be);
          expectClose(
            acc,
            Array.from(want, (w, j) => w + out0[j]!),
            0,
            rows * 1e-6,
            `sumRows accumulate ${rows}×${cols}`,
          );
        }
      });

      it('axpy: y += αx', async () => {
        const rng = new Rng(29);
        for (const n of [1, 7, 1031, 5000]) {
          const x = randomF32(n, rng),
            y0 = randomF32(n, rng),
            y = y0.slice();
          be.axpy(-0.37, x, y);
          await settle(be);
          expectClose(
            y,
            Array.from(x, (v, i) => y0[i]! - 0.37 * v),
            1e-6,
            1e-6,
            `axpy n=${n}`,
          );
        }
        const x64 = Float64Array.from([1, 2, 3]),
          y64 = Float64Array.from([0.1, 0.2, 0.3]);
        be.axpy(1 / 3, x64, y64);
        expectClose(y64, [0.1 + 1 / 3, 0.2 + 2 / 3, 0.3 + 1], 1e-15, 1e-15, 'float64 axpy');
      });

      it('adam: one step agrees with the float64 formula (plain, L2, decoupled shrink); float64 exactly', async () => {
        const rng = new Rng(47);
        for (const n of [1, 7, 1031]) {
          for (const h of [
            { b1: 0.9, b2: 0.999, step: 1e-3, epsHat: 1e-8, l2: 0, shrink: 1 },
            { b1: 0.8, b2: 0.99, step: 0.05, epsHat: 1e-6, l2: 0.01, shrink: 1 },
            { b1: 0.9, b2: 0.999, step: 0.01, epsHat: 1e-8, l2: 0, shrink: 0.999 },
          ]) {
            const p0 = randomF32(n, rng),
              g = randomF32(n, rng),
              m0 = randomF32(n, rng, 0.1);
            const v0 = Float32Array.from(randomF32(n, rng), (x) => x * x);
            const want = Array.from(p0, (p, j) => {
              const ps = p * h.shrink,
                gj = g[j]! + h.l2 * ps;
              const mj = h.b1 * m0[j]! + (1 - h.b1) * gj,
                vj = h.b2 * v0[j]! + (1 - h.b2) * gj * gj;
              return [ps - (h.step * mj) / (Math.sqrt(vj) + h.epsHat), mj, vj] as const;
            });
            const p = p0.slice(),
              m = m0.slice(),
              v = v0.slice();
            be.adam(p, g, m, v, h);
            await settle(be);
            expectClose(
              m,
              want.map((w) => w[1]),
              1e-6,
              1e-7,
              `adam m, n=${n}`,
            );
            expectClose(
              v,
              want.map((w) => w[2]),
              1e-6,
              1e-9,
              `adam v, n=${n}`,
            );
            expectClose(
              p,
              want.map((w) => w[0]),
              1e-6,
              1e-6 * h.step,
              `adam p, n=${n}`,
            );
            const p64 = Float64Array.from(p0),
              m64 = Float64Array.from(m0),
              v64 = Float64Array.from(v0);
            be.adam(p64, Float64Array.from(g), m64, v64, h);
            expectClose(
              p64,
              want.map((w) => w[0]),
              1e-12,
              1e-15,
              `float64 adam p, n=${n}`,
            );
          }
        }
      });

      it('allFinite: false for a NaN or ±∞ at any position (every SIMD lane and the tail), true otherwise', async () => {
        const rng = new Rng(31);
        for (const n of [0, 1, 7, 8, 1031]) {
          const x = randomF32(n, rng, 1e30);
          expect(await finite(be, x)).toBe(true);
          expect(be.allFinite(Float64Array.from(x))).toBe(true);
          for (const pos of new Set([0, 1, 2, 3, n >> 1, n - 2, n - 1].filter((p) => p >= 0 && p < n))) {
            for (const bad of [NaN, Infinity, -Infinity]) {
              const y = x.slice();
              y[pos] = bad;
              expect(await finite(be, y), `n=${n}, ${bad} at ${pos}`).toBe(false);
              expect(be.allFinite(Float64Array.from(y))).toBe(false);
            }
          }
        }
        expect(await finite(be, Float32Array.of(3.4e38, -3.4e38, 1e-45))).toBe(true);
      });
    });

    describe('rows, losses and copies', () => {
      it('gemm with a bias + activation epilogue equals gemm then addRowVector', async () => {
        const rng = new Rng(71);
        for (const [m, n, k] of [
          [1, 1, 1],
          [5, 7, 3],
          [70, 33, 65],
          [3, 130, 0],
        ] as const) {
          for (const op of ['identity', 'relu', 'sigmoid', 'tanh'] as const) {
            const a = randomF32(m * k, rng),
              b = randomF32(n * k, rng),
              bias = randomF32(n, rng),
              c = randomF32(m * n, rng);
            be.gemm(false, true, m, n, k, a, b, c, false, bias, op);
            await settle(be);
            const { c: want } = naiveGemm(false, true, m, n, k, a, b);
            expectClose(
              c,
              Array.from(want, (w, i) => applyUnary(op, w + bias[i % n]!)),
              1e-5,
              1e-5 * (k + 1),
              `gemm+${op} ${m}×${n}×${k}`,
            );
          }
        }
      });

      it('fill and copyRows', async () => {
        const rng = new Rng(73);
        const x = randomF32(1031, rng);
        be.fill(x.subarray(3, 1000), 2.5);
        await settle(be);
        expect(x.subarray(3, 1000).every((v) => v === 2.5)).toBe(true);
        const src = randomF32(7 * 11, rng),
          dst = randomF32(7 * 13, rng),
          before = dst.slice();
        be.copyRows(7, 5, src.subarray(2), 11, dst.subarray(4), 13);
        await settle(be);
        for (let r = 0; r < 7; r++)
          for (let j = 0; j < 13; j++) {
            const inside = j >= 4 && j < 9;
            expect(dst[r * 13 + j]).toBe(inside ? src[r * 11 + 2 + j - 4] : before[r * 13 + j]);
          }
      });

      it('softmax and its pullback match the float64 definitions, large inputs too', async () => {
        const rng = new Rng(79);
        for (const [rows, n] of [
          [1, 1],
          [3, 10],
          [300, 17],
        ] as const) {
          const x = randomF32(rows * n, rng, 30),
            y = new Float32Array(rows * n),
            dy = randomF32(rows * n, rng),
            dx = new Float32Array(rows * n);
          be.softmax(x, rows, n, y);
          await settle(be);
          be.softmaxBackward(y, dy, rows, n, dx);
          await settle(be);
          for (let r = 0; r < rows; r++) {
            const row = Array.from(x.subarray(r * n, (r + 1) * n)),
              mx = Math.max(...row);
            const e = row.map((v) => Math.exp(v - mx)),
              s = e.reduce((p, q) => p + q, 0),
              p = e.map((v) => v / s);
            expectClose(y.subarray(r * n, (r + 1) * n), p, 1e-5, 1e-7, `softmax row ${r}`);
            const dot = p.reduce((acc, pj, j) => acc + pj * dy[r * n + j]!, 0);
            expectClose(
              dx.subarray(r * n, (r + 1) * n),
              p.map((pj, j) => pj * (dy[r * n + j]! - dot)),
              1e-5,
              1e-6,
              `softmax pullback row ${r}`,
            );
          }
        }
      });

      it.each(['mse', 'bce', 'softmax-cross-entropy'] as const)('lossGrad %s: per-row losses sum to the mean loss, and its gradient', async (kind) => {
        const rng = new Rng(83);
        const rows = 37,
          cols = kind === 'bce' ? 1 : 10;
        const z = randomF32(rows * cols, rng, 4),
          t = new Float32Array(rows * cols);
        for (let r = 0; r < rows; r++) {
          if (kind === 'mse') for (let j = 0; j < cols; j++) t[r * cols + j] = rng.uniform();
          else if (kind === 'bce') t[r] = rng.uniform() < 0.5 ? 1 : 0;
          else t[r * cols + Math.floor(rng.uniform() * cols)] = 1;
        }
        const grad = new Float32Array(rows * cols),
          rowLoss = new Float32Array(rows);
        be.lossGrad(kind, z, t, rows, cols, grad, rowLoss);
        await settle(be);
        const wantG = new Float64Array(rows * cols),
          wantL = new Float64Array(rows);
        lossGradRows(kind, Float64Array.from(z), Float64Array.from(t), rows, cols, wantG, wantL);
        expectClose(rowLoss, wantL, 1e-5, 1e-7, `${kind} row losses`);
        expectClose(grad, wantG, 1e-5, 1e-8, `${kind} gradient`);
      });

      it('argmaxRows: the first largest entry, or the threshold for one column', async () => {
        const rng = new Rng(89);
        const y = Float32Array.from({ length: 50 * 6 }, () => Math.floor(rng.uniform() * 4)),
          out = new Float32Array(50);
        be.argmaxRows(y, 50, 6, 0, out);
        await settle(be);
        for (let r = 0; r < 50; r++) {
          const row = Array.from(y.subarray(r * 6, r * 6 + 6));
          expect(out[r]).toBe(row.indexOf(Math.max(...row)));
        }
        const z = randomF32(40, rng),
          one = new Float32Array(40);
        be.argmaxRows(z, 40, 1, 0.25, one);
        await settle(be);
        expect(Array.from(one)).toEqual(Array.from(z, (v) => (v > 0.25 ? 1 : 0)));
      });
    });

    describe('sliding windows', () => {
      /** Random geometries, padding wider than the image and strides over 1 included. */
      const geometries = (rng: Rng): Window[] => {
        const out: Window[] = [];
        for (let t = 0; t < 40; t++) {
          const kh = 1 + Math.floor(rng.uniform() * 4),
            kw = 1 + Math.floor(rng.uniform() * 4);
          const ph = Math.floor(rng.uniform() * (kh + 1)),
            pw = Math.floor(rng.uniform() * (kw + 1));
          const H = Math.max(1, kh - 2 * ph) + Math.floor(rng.uniform() * 9),
            W = Math.max(1, kw - 2 * pw) + Math.floor(rng.uniform() * 9);
          out.push(
            makeWindow('test', 1 + Math.floor(rng.uniform() * 3), H, W, kh, kw, 1 + Math.floor(rng.uniform() * 3), 1 + Math.floor(rng.uniform() * 3), ph, pw),
          );
        }
        // a 7-wide kernel padded by 3 on a 1-wide image: the first valid column lies beyond the
        // output row; an output row of 70,000 columns (more than 16 bits of column index)
        out.push(
          makeWindow('test', 2, 5, 1, 3, 7, 1, 1, 1, 3),
          makeWindow('test', 16, 28, 28, 3, 3, 1, 1, 1, 1),
          makeWindow('test', 1, 1, 70000, 1, 3, 1, 1, 0, 1),
        );
        return out;
      };
      /** x[c, h, w] of sample s, 0 in the padding: the definition of im2col's entries. */
      const pixel = (g: Window, x: Float32Array, s: number, c: number, h: number, w: number): number =>
        h < 0 || h >= g.H || w < 0 || w >= g.W ? 0 : x[((s * g.C + c) * g.H + h) * g.W + w]!;

      it('im2col and col2im of a batch match their definitions (col2im is the adjoint: ⟨im2col x, c⟩ = ⟨x, col2im c⟩)', async () => {
        const rng = new Rng(53);
        for (const g of geometries(rng)) {
          const count = 3,
            P = g.Ho * g.Wo,
            K = g.C * g.kh * g.kw,
            S = g.C * g.H * g.W,
            ld = count * P + 2,
            off = 5;
          const xbuf = randomF32(off + count * S, rng),
            x = xbuf.subarray(off);
          const col = randomF32(K * ld, rng),
            before = col.slice();
          be.im2col(g, xbuf, off, count, col, ld);
          await settle(be);
          for (let s = 0; s < count; s++) {
            for (let c = 0; c < g.C; c++)
              for (let i = 0; i < g.kh; i++)
                for (let j = 0; j < g.kw; j++) {
                  for (let oh = 0; oh < g.Ho; oh++)
                    for (let ow = 0; ow < g.Wo; ow++) {
                      const got = col[((c * g.kh + i) * g.kw + j) * ld + s * P + oh * g.Wo + ow]!;
                      const want = pixel(g, x, s, c, oh * g.sh - g.ph + i, ow * g.sw - g.pw + j);
                      if (got !== want) throw new Error(`im2col ${JSON.stringify(g)}: sample ${s} (${c},${i},${j},${oh},${ow}) is ${got}, should be ${want}`);
                    }
                }
          }
          for (let r = 0; r < K; r++)
            expect(Array.from(col.subarray(r * ld + count * P, (r + 1) * ld))).toEqual(Array.from(before.subarray(r * ld + count * P, (r + 1) * ld)));
          const c = randomF32(K * ld, rng),
            dx0 = randomF32(off + count * S, rng),
            dx = dx0.slice();
          be.col2im(g, c, ld, count, dx, off);
          await settle(be);
          expect(Array.from(dx.subarray(0, off))).toEqual(Array.from(dx0.subarray(0, off)));
          let lhs = 0,
            rhs = 0;
          for (let r = 0; r < K; r++) for (let q = 0; q < count * P; q++) lhs += col[r * ld + q]! * c[r * ld + q]!;
          for (let q = 0; q < count * S; q++) rhs += x[q]! * (dx[off + q]! - dx0[off + q]!);
          expect(Math.abs(lhs - rhs)).toBeLessThan(1e-4 * (1 + Math.abs(lhs)));
        }
      });

      it('maxPool: the first maximum of each window and where it is; a NaN takes over; scatterAdd sends dy there', async () => {
        const rng = new Rng(59);
        for (const [C, H, W, k, st] of [
          [3, 28, 28, 2, 2],
          [2, 9, 11, 2, 2],
          [2, 9, 11, 3, 2],
          [1, 8, 8, 2, 1],
          [4, 7, 13, 3, 3],
        ] as const) {
          const g = makeWindow('test', C, H, W, k, k, st, st, 0, 0),
            planes = 2 * C,
            n = planes * g.Ho * g.Wo;
          // few distinct values, so that ties are common; some NaNs and infinities
          const x = Float32Array.from({ length: planes * H * W }, () => Math.floor(rng.uniform() * 4) - 2);
          for (let t = 0; t < 5; t++) x[Math.floor(rng.uniform() * x.length)] = [NaN, Infinity, -Infinity][t % 3]!;
          const y = randomF32(n, rng),
            arg = randomF32(n, rng);
          be.maxPool(g, x, planes, y, arg);
          await settle(be);
          for (let pl = 0, o = 0; pl < planes; pl++)
            for (let oh = 0; oh < g.Ho; oh++)
              for (let ow = 0; ow < g.Wo; ow++, o++) {
                let best = -Infinity,
                  at = pl * H * W + oh * st * W + ow * st;
                outer: for (let i = 0; i < k; i++)
                  for (let j = 0; j < k; j++) {
                    const q = pl * H * W + (oh * st + i) * W + ow * st + j,
                      v = x[q]!;
                    if (Number.isNaN(v)) {
                      best = v;
                      at = q;
                      break outer;
                    }
                    if (v > best) {
                      best = v;
                      at = q;
                    }
                  }
                expect(Object.is(y[o], Math.fround(best)) || (Number.isNaN(y[o]!) && Number.isNaN(best)), `${C}×${H}×${W} k${k} s${st}: output ${o}`).toBe(
                  true,
                );
                expect(arg[o]).toBe(at);
              }
          const dy = randomF32(n, rng),
            dx0 = randomF32(x.length, rng),
            dx = dx0.slice(),
            want = Float64Array.from(dx0);
          for (let o = 0; o < n; o++) want[arg[o]!]! += dy[o]!;
          be.scatterAdd(dy, arg, dx);
          await settle(be);
          expectClose(dx, want, 1e-6, 1e-6, 'scatterAdd');
        }
      });

      it('avgPool: the mean of each window; avgPoolBackward is its adjoint (⟨avgPool x, d⟩ = ⟨x, avgPoolBackward d⟩)', async () => {
        const rng = new Rng(67);
        for (const [C, H, W, k, st] of [
          [3, 28, 28, 2, 2],
          [2, 9, 11, 3, 2],
          [1, 8, 8, 2, 1],
          [4, 7, 13, 3, 3],
        ] as const) {
          const g = makeWindow('test', C, H, W, k, k, st, st, 0, 0),
            planes = 2 * C,
            n = planes * g.Ho * g.Wo;
          const x = randomF32(planes * H * W, rng),
            y = randomF32(n, rng);
          be.avgPool(g, x, planes, y);
          await settle(be);
          for (let pl = 0, o = 0; pl < planes; pl++)
            for (let oh = 0; oh < g.Ho; oh++)
              for (let ow = 0; ow < g.Wo; ow++, o++) {
                let s = 0;
                for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) s += x[pl * H * W + (oh * st + i) * W + ow * st + j]!;
                expect(Math.abs(y[o]! - s / (k * k))).toBeLessThan(1e-6);
              }
          const d = randomF32(n, rng),
            dx0 = randomF32(x.length, rng),
            dx = dx0.slice();
          be.avgPoolBackward(g, d, planes, dx);
          await settle(be);
          let lhs = 0,
            rhs = 0;
          for (let o = 0; o < n; o++) lhs += y[o]! * d[o]!;
          for (let i = 0; i < x.length; i++) rhs += x[i]! * (dx[i]! - dx0[i]!);
          expect(Math.abs(lhs - rhs)).toBeLessThan(1e-4 * (1 + Math.abs(lhs)));
        }
      });

      it('swapAxes: y[b,a,:] = f(x[a,b,:] (+ bias[a])), the bits of unary f applied afterwards', async () => {
        const rng = new Rng(61);
        for (const [A, B, P] of [
          [1, 1, 1],
          [3, 5, 7],
          [16, 64, 196],
          [32, 3, 1],
        ] as const) {
          const x = randomF32(A * B * P, rng, 3),
            bias = randomF32(A, rng),
            y = new Float32Array(A * B * P),
            yb = new Float32Array(A * B * P);
          be.swapAxes(x, A, B, P, y);
          await settle(be);
          be.swapAxes(x, A, B, P, yb, bias);
          await settle(be);
          for (let a = 0; a < A; a++)
            for (let b = 0; b < B; b++)
              for (let p = 0; p < P; p++) {
                const v = x[(a * B + b) * P + p]!;
                expect(y[(b * A + a) * P + p]).toBe(v);
                expect(yb[(b * A + a) * P + p]).toBe(Math.fround(v + bias[a]!));
              }
          for (const op of ['relu', 'sigmoid', 'tanh', 'exp'] as const) {
            const fused = new Float32Array(A * B * P),
              then = yb.slice();
            be.swapAxes(x, A, B, P, fused, bias, op);
            await settle(be);
            be.unary(op, then, then);
            await settle(be);
            expect(Buffer.from(fused.buffer).equals(Buffer.from(then.buffer)), `${op} ${A}×${B}×${P}`).toBe(true);
          }
        }
      });
    });

    // Arrays from be.alloc live in the backend's own memory and are used where they are: each
    // kernel must give the same bits whichever of its arguments live there (all 2^k mixes),
    // in place too, and on subarray views of them.
    describe.runIf(be.alloc?.(1) !== undefined)("arrays in the backend's own memory (alloc)", () => {
      const own = (src: Float32Array): Float32Array => {
        const r = be.alloc!(src.length)!;
        expect(Array.from(r.subarray(0, 8))).toEqual(new Array(Math.min(8, src.length)).fill(0));
        r.set(src);
        return r;
      };
      /** Every mix of ordinary and resident copies of the arguments. */
      const mixes = (args: Float32Array[]): Float32Array[][] =>
        Array.from({ length: 1 << args.length }, (_, mask) => args.map((x, i) => ((mask >> i) & 1 ? own(x) : x.slice())));
      const bits = (x: Float32Array): string => Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('hex');

      it('gemm (every transpose, accumulate or not) gives the same bits on any mix of resident arguments', () => {
        const rng = new Rng(37);
        for (const [m, n, k] of [
          [5, 7, 3],
          [33, 65, 31],
          [129, 67, 257],
        ] as const) {
          for (const [tA, tB] of TRANSPOSES) {
            for (const acc of [false, true]) {
              const a = randomF32(m * k, rng),
                b = randomF32(k * n, rng),
                c0 = randomF32(m * n, rng);
              const want = c0.slice();
              be.gemm(tA, tB, m, n, k, a, b, want, acc);
              for (const [x, y, c] of mixes([a, b, c0])) {
                be.gemm(tA, tB, m, n, k, x!, y!, c!, acc);
                expect(bits(c!)).toBe(bits(want));
              }
            }
          }
        }
      });

      it('a resident subarray view is written where it is, and nothing around it', () => {
        const rng = new Rng(41);
        const m = 37,
          n = 45,
          k = 29;
        const a = randomF32(m * k, rng),
          b = randomF32(k * n, rng);
        const buf = own(randomF32(m * n + 10, rng)),
          before = buf.slice();
        const want = new Float32Array(m * n);
        be.gemm(false, true, m, n, k, a, b, want, false);
        be.gemm(false, true, m, n, k, own(a).subarray(0), b, buf.subarray(4, 4 + m * n), false);
        expect(bits(buf.subarray(4, 4 + m * n))).toBe(bits(want));
        expect(bits(buf.subarray(0, 4))).toBe(bits(before.subarray(0, 4)));
        expect(bits(buf.subarray(4 + m * n))).toBe(bits(before.subarray(4 + m * n)));
      });

      it('elementwise, reduction, optimiser and sliding-window kernels give the same bits on any mix, in place too', () => {
        const rng = new Rng(43);
        const rows = 33,
          cols = 37,
          n = rows * cols;
        for (const op of UNARY_OPS) {
          const x = unaryInputs(n, rng),
            v = randomF32(cols, rng),
            dy = randomF32(n, rng),
            dx0 = randomF32(n, rng);
          const y = Float32Array.from(x, (t) => applyUnary(op, t));
          const fx = new Float32Array(n),
            fxv = new Float32Array(n),
            dx = dx0.slice();
          be.unary(op, x, fx);
          be.addRowVector(x, v, rows, cols, fxv, op);
          be.unaryBackward(op, x, y, dy, dx, true);
          for (const [xx, out] of mixes([x, new Float32Array(n)])) {
            be.unary(op, xx!, out!);
            expect(bits(out!)).toBe(bits(fx));
            be.unary(op, xx!, xx!);
            expect(bits(xx!)).toBe(bits(fx));
          }
          for (const [xx, vv, out] of mixes([x, v, new Float32Array(n)])) {
            be.addRowVector(xx!, vv!, rows, cols, out!, op);
            expect(bits(out!)).toBe(bits(fxv));
          }
          for (const [xx, yy, g, d] of mixes([x, y, dy, dx0])) {
            be.unaryBackward(op, xx!, yy!, g!, d!, true);
            expect(bits(d!)).toBe(bits(dx));
          }
        }
        const x = randomF32(n, rng),
          s0 = randomF32(cols, rng),
          y0 = randomF32(n, rng);
        const s = s0.slice(),
          y = y0.slice();
        be.sumRows(x, rows, cols, s, true);
        be.axpy(-0.3, x, y);
        for (const [xx, out, yy] of mixes([x, s0, y0])) {
          be.sumRows(xx!, rows, cols, out!, true);
          expect(bits(out!)).toBe(bits(s));
          be.axpy(-0.3, xx!, yy!);
          expect(bits(yy!)).toBe(bits(y));
          expect(be.allFinite(xx!)).toBe(true);
        }
        const h = { b1: 0.9, b2: 0.999, step: 0.01, epsHat: 1e-8, l2: 0.01, shrink: 0.999 };
        const v0 = Float32Array.from(y0, (t) => t * t),
          p = y0.slice(),
          m = x.slice(),
          v = v0.slice();
        be.adam(p, x, m, v, h);
        for (const [pp, g, mm, vv] of mixes([y0, x, x, v0])) {
          be.adam(pp!, g!, mm!, vv!, h);
          expect([bits(pp!), bits(mm!), bits(vv!)]).toEqual([bits(p), bits(m), bits(v)]);
        }
        // the sliding-window kernels, on offsets and subarray views of resident arrays
        const g = makeWindow('test', 3, 9, 11, 3, 3, 2, 1, 1, 1),
          count = 2,
          P = g.Ho * g.Wo,
          K = 27,
          S = 3 * 9 * 11,
          ld = count * P;
        const xs = randomF32(5 + count * S, rng),
          cm = randomF32(K * ld, rng),
          d0 = randomF32(count * S + 7, rng);
        const colWant = new Float32Array(K * ld),
          dxWant = d0.slice();
        be.im2col(g, xs, 5, count, colWant, ld);
        be.col2im(g, cm, ld, count, dxWant, 7);
        for (const [xx, col, cc, dd] of mixes([xs, new Float32Array(K * ld), cm, d0])) {
          be.im2col(g, xx!, 5, count, col!, ld);
          expect(bits(col!)).toBe(bits(colWant));
          be.col2im(g, cc!, ld, count, dd!, 7);
          expect(bits(dd!)).toBe(bits(dxWant));
        }
        const pw = makeWindow('test', 2, 8, 10, 2, 2, 2, 2, 0, 0),
          planes = 4,
          out = planes * pw.Ho * pw.Wo;
        const px = randomF32(planes * 80, rng),
          pdy = randomF32(out, rng),
          pdx = randomF32(planes * 80, rng);
        const yW = new Float32Array(out),
          aW = new Float32Array(out),
          dW = pdx.slice();
        be.maxPool(pw, px, planes, yW, aW);
        be.scatterAdd(pdy, aW, dW);
        const sw = randomF32(12 * 5 * 7, rng),
          sb = randomF32(12, rng),
          swW = new Float32Array(12 * 5 * 7);
        be.swapAxes(sw, 12, 5, 7, swW, sb, 'tanh');
        for (const [xx, yy, aa, gg, dd] of mixes([px, new Float32Array(out), new Float32Array(out), pdy, pdx])) {
          be.maxPool(pw, xx!, planes, yy!, aa!);
          expect([bits(yy!), bits(aa!)]).toEqual([bits(yW), bits(aW)]);
          be.scatterAdd(gg!, aa!, dd!);
          expect(bits(dd!)).toBe(bits(dW));
        }
        for (const [xx, bb, yy] of mixes([sw, sb, new Float32Array(12 * 5 * 7)])) {
          be.swapAxes(xx!, 12, 5, 7, yy!, bb!, 'tanh');
          expect(bits(yy!)).toBe(bits(swW));
        }
        const bad = own(x);
        bad[n - 1] = NaN;
        expect(be.allFinite(bad)).toBe(false);
      });
    });
  });
}
