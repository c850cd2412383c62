import { backend } from '../tensor/registry.js';
import type { Tensor } from '../tensor/tensor.js';
import { broadcastShapes } from './dim.js';
import type { SymShape } from './dim.js';
import { defineOp } from './op.js';
import type { OpCtx, OpDef, OpLens } from './op.js';
import { binaryMap, sumToShape, ternaryMap } from './strided.js';

/**
 * The broadcasting operators of two or more inputs (ONNX's multidirectional broadcasting). The
 * pullback of a broadcast is a sum over the axes it copied along (sumToShape); the arithmetic
 * takes the backend's kernels where one fits (a same-shape Add/Sub is a copy and an axpy, a bias
 * over the last axis addRowVector), a strided loop otherwise.
 */

const outShape = (ins: readonly SymShape[], where: string): SymShape => ins.reduce((s, t) => broadcastShapes(s, t, where));
const shapeOfAll = (xs: readonly Tensor[]): number[] =>
  outShape(
    xs.map((x) => x.shape),
    'broadcast',
  ) as number[];
const dtypeOf = (xs: readonly Tensor[]): Tensor['dtype'] => (xs.some((x) => x.dtype === 'float64') ? 'float64' : 'float32');

/** out = a ± b by kernels when a has out's shape and b has it too or is a row vector of its last axis; false when neither fits. */
function addByKernel(a: Tensor, b: Tensor, sign: 1 | -1, out: Tensor): boolean {
  const be = backend();
  if (a.size !== out.size || a.dtype !== out.dtype || b.dtype !== out.dtype) return false;
  if (b.size === out.size) {
    be.copyRows(1, a.size, a.data, a.size, out.data, a.size);
    be.axpy(sign, b.data, out.data);
    return true;
  }
  const n = out.shape[out.shape.length - 1] ?? 1;
  if (sign === 1 && b.size === n && b.shape[b.shape.length - 1] === n) {
    be.addRowVector(a.data, b.data, out.size / n, n, out.data, 'identity');
    return true;
  }
  return false;
}

/** The gradient dy·g at an input of shape s, where g = ∂y/∂x elementwise (given as a function of the broadcast position). */
function scaledBack(dy: Tensor, factor: (dy: Tensor, out: Tensor) => void, shape: readonly number[], ctx: OpCtx): Tensor {
  const full = ctx.alloc(dy.shape, dy.dtype, true);
  factor(dy, full);
  return sumToShape(full, shape, ctx);
}

interface Arith {
  readonly doc: string;
  readonly f: (a: number, b: number) => number;
  /** ∂f/∂a and ∂f/∂b at (a, b) with y = f(a, b). */
  readonly da: (a: number, b: number, y: number) => number;
  readonly db: (a: number, b: number, y: number) => number;
  /** Add and Sub: y = a ± b, by kernels where the shapes allow. */
  readonly sign?: 1 | -1;
}

const ARITH: Record<string, Arith> = {
  Add: { doc: 'y = a + b', f: (a, b) => a + b, da: () => 1, db: () => 1, sign: 1 },
  Sub: { doc: 'y = a − b', f: (a, b) => a - b, da: () => 1, db: () => -1, sign: -1 },
  Mul: { doc: 'y = a·b', f: (a, b) => a * b, da: (_a, b) => b, db: (a) => a },
  Div: { doc: 'y = a/b', f: (a, b) => a / b, da: (_a, b) => 1 / b, db: (_a, b, y) => -y / b },
  Pow: {
    doc: 'y = aᵇ',
    f: (a, b) => a ** b,
    da: (a, b) => (b === 0 ? 0 : b * a ** (b - 1)),
    // ∂aᵇ/∂b = aᵇ ln a, taken as 0 where aᵇ = 0 (PyTorch's convention)
    db: (a, _b, y) => (y === 0 ? 0 : y * Math.log(a)),
  },
  PRelu: {
    doc: 'y = a for a > 0, b·a otherwise (b the slope, broadcast)',
    f: (a, b) => (a > 0 ? a : b * a),
    da: (a, b) => (a > 0 ? 1 : b),
    db: (a) => (a > 0 ? 0 : a),
  },
};

function arithOp(name: string, p: Arith): OpDef {
  return defineOp(
    { name, doc: p.doc, inputs: 2 },
    {
      shapes: (ins, _a, where) => [outShape(ins, where)],
      forward: ([a, b], ctx) => {
        const y = ctx.alloc(shapeOfAll([a!, b!]), dtypeOf([a!, b!]), true);
        if (!(p.sign && addByKernel(a!, b!, p.sign, y))) binaryMap(a!, b!, y, p.f);
        return {
          ys: [y],
          pullback: ([dy], need) => {
            if (!dy) return [undefined, undefined];
            const back = (x: Tensor, d: Arith['da'], sign: number | undefined): Tensor =>
              sign === 1
                ? sumToShape(dy, x.shape, ctx)
                : scaledBack(dy, (g, out) => (sign === -1 ? negated(g, out) : gradientTimes(g, a!, b!, y, d, out)), x.shape as number[], ctx);
            const signA = p.sign ? 1 : undefined,
              signB = p.sign;
            return [need[0] ? back(a!, p.da, signA) : undefined, need[1] ? back(b!, p.db, signB) : undefined];
          },
        };
      },
    },
  );
}

function negated(dy: Tensor, out: Tensor): void {
  backend().fill(out.data, 0);
  backend().axpy(-1, dy.data, out.data);
}

/** out = dy ⊙ ∂(a, b, y) with a and b broadcast to y's shape. */
function gradientTimes(dy: Tensor, a: Tensor, b: Tensor, y: Tensor, d: Arith['da'], out: Tensor): void {
  const D = dy.data,
    Y = y.data;
  binaryMap(a, b, out, (u, v, i) => D[i]! * d(u, v, Y[i]!));
}

/** A comparison or logical operator: booleans as 0/1 and no gradient. */
function predicate(name: string, doc: string, f: (a: number, b: number) => boolean): OpDef {
  return defineOp(
    { name, doc, inputs: 2 },
    {
      constantInputs: [0, 1],
      shapes: (ins, _a, where) => [outShape(ins, where)],
      forward: ([a, b], ctx) => {
        const y = ctx.alloc(shapeOfAll([a!, b!]), dtypeOf([a!, b!]), true);
        binaryMap(a!, b!, y, (u, v) => (f(u, v) ? 1 : 0));
        return { ys: [y], pullback: () => [undefined, undefined] };
      },
    },
  );
}

/** Sum, Mean, Max, Min of any number of inputs: folds of the binary map; Max and Min send the gradient to the input that won (the first on ties). */
function variadic(name: string, doc: string, kind: 'sum' | 'mean' | 'max' | 'min'): OpDef {
  return defineOp(
    { name, doc, inputs: [1, 2 ** 16] },
    {
      shapes: (ins, _a, where) => [outShape(ins, where)],
      forward: (xs, ctx) => {
        const shape = shapeOfAll(xs);
        const y = ctx.alloc(shape, dtypeOf(xs));
        const win = kind === 'max' || kind === 'min' ? ctx.alloc(shape, y.dtype) : undefined;
        xs.forEach((x, k) => {
          if (k === 0) return binaryMap(y, x, y, (_u, v) => v);
          binaryMap(y, x, y, (u, v, i) => {
            const better = kind === 'max' ? v > u : kind === 'min' ? v < u : false;
            if (win && better) win.data[i] = k;
            return win ? (better ? v : u) : u + v;
          });
        });
        if (kind === 'mean') backend().axpy(1 / xs.length - 1, y.data, y.data);
        return {
          ys: [y],
          pullback: ([dy], need) =>
            xs.map((x, k) => {
              if (!dy || !need[k]) return undefined;
              if (!win) {
                if (kind === 'sum') return sumToShape(dy, x.shape, ctx);
                return scaledBack(dy, (g, out) => (backend().fill(out.data, 0), backend().axpy(1 / xs.length, g.data, out.data)), x.shape as number[], ctx);
              }
              return scaledBack(
                dy,
                (g, out) => {
                  for (let i = 0; i < out.size; i++) out.data[i] = win.data[i] === k ? g.data[i]! : 0;
                },
                x.shape as number[],
                ctx,
              );
            }),
        };
      },
    },
  );
}

/** Where(condition, a, b): a where the condition holds, b elsewhere; the gradient goes to the branch that was taken. */
const where = defineOp(
  { name: 'Where', doc: 'y = a where the condition is true (≠ 0), b elsewhere', inputs: 3 },
  {
    constantInputs: [0],
    shapes: (ins, _a, w) => [outShape(ins, w)],
    forward: (xs, ctx): OpLens => {
      const [c, a, b] = xs as [Tensor, Tensor, Tensor];
      const y = ctx.alloc(shapeOfAll(xs), dtypeOf([a, b]), true);
      ternaryMap([c, a, b], y, (u, v, w) => (u !== 0 ? v : w));
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return [undefined, undefined, undefined];
          const side = (x: Tensor, first: boolean): Tensor => {
            const full = ctx.alloc(y.shape, y.dtype, true);
            ternaryMap([c, dy, dy], full, (u, g) => ((u !== 0) === first ? g : 0));
            return sumToShape(full, x.shape, ctx);
          };
          return [undefined, need[1] ? side(a, true) : undefined, need[2] ? side(b, false) : undefined];
        },
      };
    },
  },
);

export const BINARY_OPS: readonly OpDef[] = [
  ...Object.entries(ARITH).map(([n, p]) => arithOp(n, p)),
  predicate('Equal', 'y = (a = b), as 0/1', (a, b) => a === b),
  predicate('Less', 'y = (a < b), as 0/1', (a, b) => a < b),
  predicate('LessOrEqual', 'y = (a ≤ b), as 0/1', (a, b) => a <= b),
  predicate('Greater', 'y = (a > b), as 0/1', (a, b) => a > b),
  predicate('GreaterOrEqual', 'y = (a ≥ b), as 0/1', (a, b) => a >= b),
  predicate('And', 'y = a ∧ b on booleans as 0/1', (a, b) => a !== 0 && b !== 0),
  predicate('Or', 'y = a ∨ b on booleans as 0/1', (a, b) => a !== 0 || b !== 0),
  predicate('Xor', 'y = a ⊕ b on booleans as 0/1', (a, b) => (a !== 0) !== (b !== 0)),
  variadic('Sum', 'y = x₁ + … + xₙ', 'sum'),
  variadic('Mean', 'y = (x₁ + … + xₙ)/n', 'mean'),
  variadic('Max', 'y = max(x₁, …, xₙ) elementwise; the gradient goes to the largest', 'max'),
  variadic('Min', 'y = min(x₁, …, xₙ) elementwise; the gradient goes to the smallest', 'min'),
  where,
];
