import { ShapeError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import { broadcastShapes, dimEquals, dimOver, normAxis, printShape, resolveShape, symSize } from './dim.js';
import type { Dim, SymShape } from './dim.js';
import { defineOp, dims, ints, num } from './op.js';
import type { OpDef, OpLens } from './op.js';
import { expandTo, inversePerm, permute, sumToShape } from './strided.js';

/**
 * The operators that move no values or only copy them along axes: Reshape, Flatten, Squeeze,
 * Unsqueeze (views of the same array: their pullback reshapes the gradient back), Transpose
 * (whose pullback is the inverse permutation) and Expand (whose pullback sums over the axes it
 * copied along). Sizes that depend on the batch are written B, B*k in the target shapes.
 */

/** A view of x with another shape; its pullback views dy with x's shape. */
function view(x: Tensor, shape: readonly number[]): OpLens {
  return { ys: [new Tensor(x.data, shape)], pullback: ([dy], [need]) => [need && dy ? new Tensor(dy.data, x.shape) : undefined] };
}

/** ONNX Reshape's target: 0 copies the input's size (unless allowzero), −1 is inferred. */
function reshapeTarget(x: SymShape, target: readonly Dim[], allowZero: boolean, where: string): Dim[] {
  const out = target.map((d, i) => (d === 0 && !allowZero ? (x[i] ?? 0) : d));
  const free = out.filter((d) => d === -1).length;
  if (free > 1) throw new ShapeError(`${where}: more than one size is −1`);
  if (free === 1) {
    const known = symSize(out.filter((d) => d !== -1));
    out[out.indexOf(-1)] = dimOver(symSize(x), known);
  }
  const total = symSize(out);
  if (!dimEquals(total, symSize(x))) throw new ShapeError(`${where}: cannot reshape ${printShape(x)} to ${printShape(out)}`);
  return out;
}

const reshape = defineOp(
  {
    name: 'Reshape',
    doc: 'y = x with the shape given (0 keeps an axis, −1 is inferred, B is the batch)',
    inputs: 1,
    attrs: { shape: { kind: 'dims' }, allowzero: { kind: 'int', default: 0 } },
  },
  {
    kernelsOnly: true,
    shapes: ([x], a, where) => [reshapeTarget(x!, dims(a, 'shape'), num(a, 'allowzero') !== 0, where)],
    forward: ([x], ctx, a, where) =>
      view(x!, resolveShape(reshapeTarget(x!.shape, resolveShape(dims(a, 'shape'), ctx.batch), num(a, 'allowzero') !== 0, where), ctx.batch)),
  },
);

const flattenShape = (x: SymShape, axis: number): Dim[] => [symSize(x.slice(0, axis)), symSize(x.slice(axis))];
const flatten = defineOp(
  { name: 'Flatten', doc: 'y = x as a matrix [∏ axes before axis, ∏ the rest]', inputs: 1, attrs: { axis: { kind: 'int', default: 1 } } },
  {
    kernelsOnly: true,
    shapes: ([x], a, where) => {
      const ax = num(a, 'axis');
      return [flattenShape(x!, ax === x!.length ? ax : normAxis(ax, x!.length, where))];
    },
    forward: ([x], _ctx, a, where) => {
      const ax = num(a, 'axis');
      return view(x!, flattenShape(x!.shape, ax === x!.rank ? ax : normAxis(ax, x!.rank, where)) as number[]);
    },
  },
);

function squeezed(x: SymShape, axes: readonly number[], where: string): Dim[] {
  const at = axes.length ? axes.map((a) => normAxis(a, x.length, where)) : x.flatMap((d, i) => (d === 1 ? [i] : []));
  for (const i of at) if (x[i] !== 1) throw new ShapeError(`${where}: axis ${i} of ${printShape(x)} is not of size 1`);
  return x.filter((_, i) => !at.includes(i));
}
const squeeze = defineOp(
  { name: 'Squeeze', doc: 'y = x without the given axes of size 1 (all of them by default)', inputs: 1, attrs: { axes: { kind: 'ints', default: [] } } },
  {
    kernelsOnly: true,
    shapes: ([x], a, where) => [squeezed(x!, ints(a, 'axes'), where)],
    forward: ([x], _c, a, where) => view(x!, squeezed(x!.shape, ints(a, 'axes'), where) as number[]),
  },
);

function unsqueezed(x: SymShape, axes: readonly number[], where: string): Dim[] {
  const rank = x.length + axes.length;
  const at = new Set(axes.map((a) => normAxis(a, rank, where)));
  if (at.size !== axes.length) throw new ShapeError(`${where}: an axis is given twice`);
  const out: Dim[] = [];
  let k = 0;
  for (let i = 0; i < rank; i++) out.push(at.has(i) ? 1 : x[k++]!);
  return out;
}
const unsqueeze = defineOp(
  { name: 'Unsqueeze', doc: 'y = x with axes of size 1 inserted at the given places', inputs: 1, attrs: { axes: { kind: 'ints' } } },
  {
    kernelsOnly: true,
    shapes: ([x], a, where) => [unsqueezed(x!, ints(a, 'axes'), where)],
    forward: ([x], _c, a, where) => view(x!, unsqueezed(x!.shape, ints(a, 'axes'), where) as number[]),
  },
);

function permOf(given: readonly number[], rank: number, where: string): number[] {
  const perm = given.length ? given.map((p) => normAxis(p, rank, where)) : Array.from({ length: rank }, (_, i) => rank - 1 - i);
  if (perm.length !== rank || new Set(perm).size !== rank) throw new ShapeError(`${where}: perm [${given.join(',')}] is not a permutation of ${rank} axes`);
  return perm;
}
const transpose = defineOp(
  {
    name: 'Transpose',
    doc: "y = x with its axes permuted (y's axis i is x's axis perm[i]; reversed by default)",
    inputs: 1,
    attrs: { perm: { kind: 'ints', default: [] } },
  },
  {
    shapes: ([x], a, where) => [permOf(ints(a, 'perm'), x!.length, where).map((p) => x![p]!)],
    forward: ([x], ctx, a, where) => {
      const perm = permOf(ints(a, 'perm'), x!.rank, where);
      return {
        ys: [permute(x!, perm, ctx)],
        pullback: ([dy], [need]) => [need && dy ? permute(dy, inversePerm(perm), ctx) : undefined],
      };
    },
  },
);

const expand = defineOp(
  { name: 'Expand', doc: 'y = x broadcast to the shape given (B is the batch)', inputs: 1, attrs: { shape: { kind: 'dims' } } },
  {
    shapes: ([x], a, where) => [broadcastShapes(x!, dims(a, 'shape'), where)],
    forward: ([x], ctx, a, where) => {
      const shape = broadcastShapes(x!.shape, resolveShape(dims(a, 'shape'), ctx.batch), where) as number[];
      return {
        ys: [expandTo(x!, shape, ctx)],
        pullback: ([dy], [need]) => [need && dy ? sumToShape(dy, x!.shape, ctx) : undefined],
      };
    },
  },
);

export const RESHAPE_OPS: readonly OpDef[] = [reshape, flatten, squeeze, unsqueeze, transpose, expand];
