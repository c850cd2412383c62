import { ShapeError } from '../errors.js';
import { resolveShape } from './dim.js';
import { defineOp, dims, num } from './op.js';
import type { OpDef } from './op.js';

/**
 * Operators that make values from sizes alone: Shape (the sizes of its input, as numbers),
 * ConstantOfShape and Range. None carries a gradient. Import evaluates them where their result
 * is known without data (a shape-only subgraph); those left run here, on the batch the graph
 * is given.
 */

const shape = defineOp(
  {
    name: 'Shape',
    doc: "y = the sizes of x's axes start … end",
    inputs: 1,
    attrs: { start: { kind: 'int', default: 0 }, end: { kind: 'int', default: 2 ** 31 } },
  },
  {
    constantInputs: [0],
    shapes: ([x], a) => {
      const r = x!.length;
      const at = (v: number): number => Math.min(Math.max(v < 0 ? v + r : v, 0), r);
      return [[Math.max(0, at(num(a, 'end')) - at(num(a, 'start')))]];
    },
    forward: ([x], ctx, a) => {
      const r = x!.rank;
      const at = (v: number): number => Math.min(Math.max(v < 0 ? v + r : v, 0), r);
      const sizes = x!.shape.slice(at(num(a, 'start')), at(num(a, 'end')));
      const y = ctx.alloc([sizes.length], x!.dtype, true);
      y.data.set(sizes);
      return { ys: [y], pullback: () => [undefined] };
    },
  },
);

const constantOfShape = defineOp(
  {
    name: 'ConstantOfShape',
    doc: 'y = a tensor of the shape given (B the batch) filled with the value',
    inputs: 0,
    attrs: { shape: { kind: 'dims' }, value: { kind: 'float', default: 0 } },
  },
  {
    shapes: (_x, a) => [dims(a, 'shape')],
    forward: (_x, ctx, a) => {
      const y = ctx.alloc(resolveShape(dims(a, 'shape'), ctx.batch), 'float32', true);
      y.data.fill(num(a, 'value'));
      return { ys: [y], pullback: () => [] };
    },
  },
);

function rangeLength(start: number, limit: number, delta: number, where: string): number {
  if (delta === 0) throw new ShapeError(`${where}: delta is 0`);
  return Math.max(0, Math.ceil((limit - start) / delta));
}

const range = defineOp(
  {
    name: 'Range',
    doc: 'y = start, start + delta, … below limit',
    inputs: 0,
    attrs: { start: { kind: 'float', default: 0 }, limit: { kind: 'float' }, delta: { kind: 'float', default: 1 } },
  },
  {
    shapes: (_x, a, where) => [[rangeLength(num(a, 'start'), num(a, 'limit'), num(a, 'delta'), where)]],
    forward: (_x, ctx, a, where) => {
      const n = rangeLength(num(a, 'start'), num(a, 'limit'), num(a, 'delta'), where);
      const y = ctx.alloc([n], 'float32', true);
      for (let i = 0; i < n; i++) y.data[i] = num(a, 'start') + i * num(a, 'delta');
      return { ys: [y], pullback: () => [] };
    },
  },
);

export const GENERATE_OPS: readonly OpDef[] = [shape, constantOfShape, range];
