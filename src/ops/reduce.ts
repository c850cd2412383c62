import { backend } from '../tensor/registry.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Tensor } from '../tensor/tensor.js';
import { normAxis } from './dim.js';
import type { Dim, SymShape } from './dim.js';
import { defineOp, ints, num } from './op.js';
import type { Attrs, OpCtx, OpDef } from './op.js';
import { inversePerm, permute } from './strided.js';

/**
 * Reductions over a set of axes (ReduceSum, ReduceMean, ReduceMax … with ONNX's axes, keepdims
 * and noop_with_empty_axes; opset 18 moved axes to an input, which import reads as this
 * attribute). The reduced axes are permuted to the end, so every reduction is one over the rows
 * of an [outer, n] matrix — Sum and Mean a product with a vector of ones (gemm) — and the pullback
 * is the row's derivative broadcast back along it, permuted home.
 */

/** The axes reduced (all when none are given, unless noop_with_empty_axes). */
function reducedAxes(a: Attrs, rank: number, where: string): number[] {
  const given = ints(a, 'axes');
  if (given.length === 0) return num(a, 'noop_with_empty_axes') ? [] : Array.from({ length: rank }, (_, i) => i);
  return [...new Set(given.map((x) => normAxis(x, rank, where)))].sort((x, y) => x - y);
}

function reducedShape<T extends Dim>(s: readonly T[], axes: readonly number[], keep: boolean): T[] {
  return keep ? s.map((d, i) => (axes.includes(i) ? (1 as T) : d)) : s.filter((_, i) => !axes.includes(i));
}

interface Reduction {
  readonly doc: string;
  /** y of a row x[0 … n), and the row's derivative g (∂y/∂xⱼ) written into g. */
  readonly row: (x: ArrayLike<number>, off: number, n: number) => number;
  readonly grad: (x: ArrayLike<number>, off: number, n: number, y: number, g: Float64Array) => void;
  /** Sum and Mean: by a product with ones (gemm). */
  readonly scale?: (n: number) => number;
}

const REDUCTIONS: Record<string, Reduction> = {
  ReduceSum: { doc: 'Σ over the axes', scale: () => 1, row: () => 0, grad: (_x, _o, n, _y, g) => g.fill(1, 0, n) },
  ReduceMean: { doc: 'mean over the axes', scale: (n) => 1 / n, row: () => 0, grad: (_x, _o, n, _y, g) => g.fill(1 / n, 0, n) },
  ReduceMax: {
    doc: 'max over the axes (the gradient to the first largest)',
    row: (x, o, n) => extreme(x, o, n, 1).v,
    grad: (x, o, n, _y, g) => {
      g.fill(0, 0, n);
      g[extreme(x, o, n, 1).j] = 1;
    },
  },
  ReduceMin: {
    doc: 'min over the axes (the gradient to the first smallest)',
    row: (x, o, n) => extreme(x, o, n, -1).v,
    grad: (x, o, n, _y, g) => {
      g.fill(0, 0, n);
      g[extreme(x, o, n, -1).j] = 1;
    },
  },
  ReduceProd: {
    doc: 'product over the axes',
    row: (x, o, n) => {
      let p = 1;
      for (let j = 0; j < n; j++) p *= x[o + j]!;
      return p;
    },
    // ∂/∂xⱼ Π x = Π_{i≠j} xᵢ, computed without dividing (a zero is allowed)
    grad: (x, o, n, _y, g) => {
      let left = 1;
      for (let j = 0; j < n; j++) {
        g[j] = left;
        left *= x[o + j]!;
      }
      let right = 1;
      for (let j = n - 1; j >= 0; j--) {
        g[j]! *= right;
        right *= x[o + j]!;
      }
    },
  },
  ReduceL1: {
    doc: 'Σ|x| over the axes',
    row: (x, o, n) => {
      let s = 0;
      for (let j = 0; j < n; j++) s += Math.abs(x[o + j]!);
      return s;
    },
    grad: (x, o, n, _y, g) => {
      for (let j = 0; j < n; j++) g[j] = Math.sign(x[o + j]!);
    },
  },
  ReduceL2: {
    doc: '√Σx² over the axes',
    row: (x, o, n) => Math.sqrt(sumSquares(x, o, n)),
    grad: (x, o, n, y, g) => {
      for (let j = 0; j < n; j++) g[j] = y === 0 ? 0 : x[o + j]! / y;
    },
  },
  ReduceSumSquare: {
    doc: 'Σx² over the axes',
    row: sumSquares,
    grad: (x, o, n, _y, g) => {
      for (let j = 0; j < n; j++) g[j] = 2 * x[o + j]!;
    },
  },
  ReduceLogSumExp: {
    doc: 'ln Σeˣ over the axes',
    row: (x, o, n) => {
      const m = extreme(x, o, n, 1).v;
      if (!Number.isFinite(m)) return m;
      let s = 0;
      for (let j = 0; j < n; j++) s += Math.exp(x[o + j]! - m);
      return m + Math.log(s);
    },
    grad: (x, o, n, y, g) => {
      for (let j = 0; j < n; j++) g[j] = Math.exp(x[o + j]! - y);
    },
  },
};

function sumSquares(x: ArrayLike<number>, o: number, n: number): number {
  let s = 0;
  for (let j = 0; j < n; j++) s += x[o + j]! * x[o + j]!;
  return s;
}

/** The first largest (sign 1) or smallest (−1) entry of a row and where it is; a NaN wins. */
function extreme(x: ArrayLike<number>, o: number, n: number, sign: 1 | -1): { v: number; j: number } {
  let v = sign * -Infinity,
    at = 0;
  for (let j = 0; j < n; j++) {
    const u = x[o + j]!;
    if (u !== u) return { v: u, j };
    if (sign * u > sign * v) {
      v = u;
      at = j;
    }
  }
  return { v: n ? v : sign * -Infinity, j: at };
}

/** x with the axes permuted so the reduced ones come last, viewed as rows. */
function asRows(x: Tensor, axes: readonly number[], ctx: OpCtx): { rows: Tensor; perm: number[]; n: number } {
  const kept = x.shape.map((_, i) => i).filter((i) => !axes.includes(i));
  const perm = [...kept, ...axes];
  const n = sizeOf(axes.map((i) => x.shape[i]!));
  const trailing = axes.every((ax, i) => ax === x.rank - axes.length + i);
  return { rows: trailing ? x : permute(x, perm, ctx), perm, n };
}

function reduceOp(name: string, r: Reduction): OpDef {
  return defineOp(
    {
      name,
      doc: r.doc,
      inputs: 1,
      attrs: { axes: { kind: 'ints', default: [] }, keepdims: { kind: 'int', default: 1 }, noop_with_empty_axes: { kind: 'int', default: 0 } },
    },
    {
      shapes: ([x], a, where) => [reducedShape(x! as Dim[], reducedAxes(a, x!.length, where), num(a, 'keepdims') !== 0) as SymShape],
      forward: ([x], ctx, a, where) => {
        const axes = reducedAxes(a, x!.rank, where);
        const outShape = reducedShape(x!.shape as number[], axes, num(a, 'keepdims') !== 0);
        if (axes.length === 0) return { ys: [x!], pullback: ([dy], [need]) => [need ? dy : undefined] };
        const { rows, perm, n } = asRows(x!, axes, ctx);
        const outer = n === 0 ? 0 : rows.size / n;
        const y = ctx.alloc(outShape, x!.dtype, true);
        const be = backend();
        if (r.scale) {
          const ones = ctx.alloc([n], x!.dtype, true);
          be.fill(ones.data, r.scale(n));
          if (outer > 0) be.gemm(false, false, outer, 1, n, rows.data, ones.data, y.data, false);
        } else for (let i = 0; i < outer; i++) y.data[i] = r.row(rows.data, i * n, n);
        return {
          ys: [y],
          pullback: ([dy], [need]) => {
            if (!dy || !need) return [undefined];
            const dRows = ctx.alloc(rows.shape, x!.dtype, true);
            if (r.scale) {
              // dx = dy ⊗ (the constant row): a rank-one product
              const ones = ctx.alloc([n], x!.dtype, true);
              be.fill(ones.data, r.scale(n));
              if (outer > 0) be.gemm(false, false, outer, n, 1, dy.data, ones.data, dRows.data, false);
            } else {
              const g = new Float64Array(n);
              for (let i = 0; i < outer; i++) {
                r.grad(rows.data, i * n, n, y.data[i]!, g);
                const d = dy.data[i]!;
                for (let j = 0; j < n; j++) dRows.data[i * n + j] = d * g[j]!;
              }
            }
            return [rows === x ? dRows.reshape(x!.shape) : permute(dRows, inversePerm(perm), ctx)];
          },
        };
      },
    },
  );
}

export const REDUCE_OPS: readonly OpDef[] = Object.entries(REDUCTIONS).map(([n, r]) => reduceOp(n, r));
