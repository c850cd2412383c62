import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Shape } from '../tensor/tensor.js';
import { broadcastShapes, dimEquals, printShape } from './dim.js';
import type { SymShape } from './dim.js';
import { defineOp, num } from './op.js';
import type { OpDef } from './op.js';
import { broadcastStrides, forEachRun, sumToShape } from './strided.js';

/**
 * Matrix products on the backend's gemm: MatMul (NumPy's matmul: batch axes broadcast, a 1-d
 * operand a row or a column) and Gemm (α·op(A)·op(B) + β·C). The pullbacks are products too,
 * dA = dY·Bᵀ and dB = Aᵀ·dY, their transposes absorbed by the kernel's flags (never
 * materialised), summed over the batch axes an operand was broadcast along.
 */

/** The matrix view of a MatMul operand: 1-d [k] is a row [1,k] (left) or a column [k,1] (right). */
const asMatrix = <T>(s: readonly T[], left: boolean, one: T): readonly T[] => (s.length >= 2 ? s : left ? [one, ...s] : [...s, one]);

function matmulShape(a: SymShape, b: SymShape, where: string): SymShape {
  if (a.length === 0 || b.length === 0) throw new ShapeError(`${where}: MatMul of a scalar`);
  const A = asMatrix(a, true, 1),
    B = asMatrix(b, false, 1);
  const k = A[A.length - 1]!,
    k2 = B[B.length - 2]!;
  if (!dimEquals(k, k2)) throw new ShapeError(`${where}: ${printShape(a)} times ${printShape(b)}: inner sizes differ`);
  const batch = broadcastShapes(A.slice(0, -2), B.slice(0, -2), where);
  const out = [...batch, A[A.length - 2]!, B[B.length - 1]!];
  if (a.length === 1) out.splice(out.length - 2, 1);
  if (b.length === 1) out.pop();
  return out;
}

interface Plan {
  readonly m: number;
  readonly k: number;
  readonly n: number;
  readonly batch: Shape;
  readonly sa: readonly number[];
  readonly sb: readonly number[];
}

/** Sizes of the product and the strides (in matrices) of each operand's batch over the broadcast batch. */
function plan(a: Shape, b: Shape): Plan {
  const A = asMatrix(a, true, 1),
    B = asMatrix(b, false, 1);
  const batch = broadcastShapes(A.slice(0, -2), B.slice(0, -2), 'MatMul') as number[];
  return {
    m: A[A.length - 2]!,
    k: A[A.length - 1]!,
    n: B[B.length - 1]!,
    batch,
    sa: broadcastStrides(A.slice(0, -2), batch),
    sb: broadcastStrides(B.slice(0, -2), batch),
  };
}

/** Calls f(i, ia, ib) for each matrix i of the broadcast batch with the matrices ia, ib of the operands it reads. */
function forEachMatrix(p: Plan, f: (i: number, ia: number, ib: number) => void): void {
  if (p.batch.length === 0) return f(0, 0, 0);
  const la = p.sa[p.sa.length - 1]!,
    lb = p.sb[p.sb.length - 1]!;
  forEachRun(p.batch, [p.sa, p.sb], (o, [x, y], n) => {
    for (let j = 0; j < n; j++) f(o + j, x! + j * la, y! + j * lb);
  });
}

const matMul = defineOp(
  { name: 'MatMul', doc: 'y = a·b, NumPy matmul: batch axes broadcast', inputs: 2 },
  {
    shapes: ([a, b], _a, where) => [matmulShape(a!, b!, where)],
    forward: ([a, b], ctx) => {
      const be = backend();
      const p = plan(a!.shape, b!.shape);
      const { m, k, n } = p;
      const dtype = a!.dtype === 'float64' || b!.dtype === 'float64' ? 'float64' : 'float32';
      const y = ctx.alloc(matmulShape(a!.shape, b!.shape, 'MatMul') as number[], dtype, true);
      // b one matrix: the batch of a is one tall matrix [batch·m, k]
      const flat = b!.size === k * n && a!.size === sizeOf(p.batch) * m * k;
      if (flat) be.gemm(false, false, sizeOf(p.batch) * m, n, k, a!.data, b!.data, y.data, false);
      else
        forEachMatrix(p, (i, ia, ib) =>
          be.gemm(false, false, m, n, k, a!.data.subarray(ia * m * k), b!.data.subarray(ib * k * n), y.data.subarray(i * m * n), false),
        );
      return {
        ys: [y],
        pullback: ([dy], [needA, needB]) => {
          if (!dy) return [undefined, undefined];
          const da = needA ? ctx.alloc(a!.shape, dtype) : undefined,
            db = needB ? ctx.alloc(b!.shape, dtype) : undefined;
          if (flat) {
            const rows = sizeOf(p.batch) * m;
            if (da) be.gemm(false, true, rows, k, n, dy.data, b!.data, da.data, false);
            if (db) be.gemm(true, false, k, n, rows, a!.data, dy.data, db.data, false);
          } else {
            forEachMatrix(p, (i, ia, ib) => {
              const g = dy.data.subarray(i * m * n);
              // dA += dY·Bᵀ, dB += Aᵀ·dY (accumulating: a broadcast operand's matrix is read by several products)
              if (da) be.gemm(false, true, m, k, n, g, b!.data.subarray(ib * k * n), da.data.subarray(ia * m * k), true);
              if (db) be.gemm(true, false, k, n, m, a!.data.subarray(ia * m * k), g, db.data.subarray(ib * k * n), true);
            });
          }
          return [da, db];
        },
      };
    },
  },
);

/** Gemm: Y = α·op(A)·op(B) + β·C, op a transpose by flag, C broadcast to [M, N]. */
const gemm = defineOp(
  {
    name: 'Gemm',
    doc: 'y = α·op(a)·op(b) + β·c, op(x) = xᵀ when transA/transB',
    inputs: [2, 3],
    attrs: {
      alpha: { kind: 'float', default: 1 },
      beta: { kind: 'float', default: 1 },
      transA: { kind: 'int', default: 0 },
      transB: { kind: 'int', default: 0 },
    },
  },
  {
    shapes: ([a, b, c], at, where) => {
      if (a!.length !== 2 || b!.length !== 2) throw new ShapeError(`${where}: Gemm takes matrices, got ${printShape(a!)} and ${printShape(b!)}`);
      const [M, K] = num(at, 'transA') ? [a![1]!, a![0]!] : [a![0]!, a![1]!];
      const [K2, N] = num(at, 'transB') ? [b![1]!, b![0]!] : [b![0]!, b![1]!];
      if (!dimEquals(K, K2)) throw new ShapeError(`${where}: op(a) ${printShape([M, K])} times op(b) ${printShape([K2, N])}: inner sizes differ`);
      if (c) broadcastShapes([M, N], c, where);
      return [[M, N]];
    },
    forward: (xs, ctx, at) => {
      const [a, b, c] = xs as [Tensor, Tensor, Tensor | undefined];
      const be = backend();
      const tA = num(at, 'transA') !== 0,
        tB = num(at, 'transB') !== 0,
        alpha = num(at, 'alpha'),
        beta = num(at, 'beta');
      const [M, K] = tA ? [a.shape[1]!, a.shape[0]!] : [a.shape[0]!, a.shape[1]!];
      const N = tB ? b.shape[0]! : b.shape[1]!;
      const dtype = a.dtype === 'float64' || b.dtype === 'float64' ? 'float64' : 'float32';
      const y = ctx.alloc([M, N], dtype, true);
      const rowBias = c && beta === 1 && alpha === 1 && c.size === N && c.shape[c.shape.length - 1] === N;
      be.gemm(tA, tB, M, N, K, a.data, b.data, y.data, false, rowBias ? c.data : undefined);
      if (alpha !== 1) scale(y, alpha);
      if (c && !rowBias && beta !== 0) broadcastAdd(c, beta, y);
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return [undefined, undefined, undefined];
          const da = need[0] ? ctx.alloc(a.shape, dtype) : undefined,
            db = need[1] ? ctx.alloc(b.shape, dtype) : undefined;
          // dA = α·dY·op(B)ᵀ (or its transpose), dB = α·op(A)ᵀ·dY (or its transpose)
          if (da) {
            if (!tA) be.gemm(false, !tB, M, K, N, dy.data, b.data, da.data, false);
            else be.gemm(tB, true, K, M, N, b.data, dy.data, da.data, false);
            if (alpha !== 1) scale(da, alpha);
          }
          if (db) {
            if (!tB) be.gemm(!tA, false, K, N, M, a.data, dy.data, db.data, false);
            else be.gemm(true, tA, N, K, M, dy.data, a.data, db.data, false);
            if (alpha !== 1) scale(db, alpha);
          }
          let dc: Tensor | undefined;
          if (c && need[2]) {
            dc = sumToShape(dy, c.shape, ctx);
            if (beta !== 1) {
              if (dc.data === dy.data) dc = dc.clone();
              scale(dc, beta);
            }
          }
          return [da, db, dc];
        },
      };
    },
  },
);

/** t ← s·t (an axpy of t onto itself). */
function scale(t: Tensor, s: number): void {
  backend().axpy(s - 1, t.data, t.data);
}

/** y += β·c, c broadcast to y's shape. */
function broadcastAdd(c: Tensor, beta: number, y: Tensor): void {
  const st = broadcastStrides(c.shape, y.shape);
  const step = st[st.length - 1] ?? 0;
  forEachRun(y.shape, [st], (o, [p], n) => {
    for (let j = 0, q = p!; j < n; j++, q += step) y.data[o + j] = y.data[o + j]! + beta * c.data[q]!;
  });
}

export const MATMUL_OPS: readonly OpDef[] = [matMul, gemm];
