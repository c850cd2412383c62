import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Tensor } from '../tensor/tensor.js';
import { dimEquals, normAxis, printShape } from './dim.js';
import type { Dim, SymShape } from './dim.js';
import { defineOp, ints, num } from './op.js';
import type { Attrs, OpCtx, OpDef } from './op.js';

/**
 * Concat and Split along one axis: each a block copy of rows (the backend's copyRows), each the
 * other's pullback. With x viewed as [outer, size·inner], part k is the column block of width
 * sizeₖ·inner — the monoidal product of Para (src/para/composite.ts: joinRows, splitRows) on
 * any axis.
 */

/** Copies the parts' blocks into y side by side (Concat), or y's blocks into the parts (Split: `into` false). */
function blocks(parts: readonly Tensor[], y: Tensor, axis: number, intoY: boolean): void {
  const outer = sizeOf(y.shape.slice(0, axis));
  const row = y.size / Math.max(outer, 1);
  let off = 0;
  const be = backend();
  for (const p of parts) {
    const w = p.size / Math.max(outer, 1);
    if (outer > 0 && w > 0) {
      if (intoY) be.copyRows(outer, w, p.data, w, y.data.subarray(off), row);
      else be.copyRows(outer, w, y.data.subarray(off), row, p.data, w);
    }
    off += w;
  }
}

function concatShape(ins: readonly SymShape[], axis: number, where: string): Dim[] {
  const first = ins[0]!;
  const ax = normAxis(axis, first.length, where);
  let total: Dim = 0;
  for (const s of ins) {
    if (s.length !== first.length || !s.every((d, i) => i === ax || dimEquals(d, first[i]!)))
      throw new ShapeError(`${where}: cannot join ${ins.map(printShape).join(' and ')} along axis ${axis}`);
    const d = s[ax]!;
    if (typeof d !== 'number' || typeof total !== 'number') {
      if (ins.length !== 1) throw new ShapeError(`${where}: cannot join along the batch axis`);
      total = d;
    } else total += d;
  }
  return first.map((d, i) => (i === ax ? total : d));
}

const concat = defineOp(
  { name: 'Concat', doc: 'y = the inputs side by side along the axis', inputs: [1, 2 ** 16], attrs: { axis: { kind: 'int' } } },
  {
    kernelsOnly: true,
    shapes: (ins, a, where) => [concatShape(ins, num(a, 'axis'), where)],
    forward: (xs, ctx, a, where) => {
      const ax = normAxis(num(a, 'axis'), xs[0]!.rank, where);
      const dtype = xs.some((x) => x.dtype === 'float64') ? 'float64' : 'float32';
      const y = ctx.alloc(
        concatShape(
          xs.map((x) => x.shape),
          ax,
          where,
        ) as number[],
        dtype,
        true,
      );
      blocks(xs, y, ax, true);
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return xs.map(() => undefined);
          const parts = xs.map((x) => ctx.alloc(x.shape, dy.dtype, true));
          blocks(parts, dy, ax, false);
          return parts.map((p, i) => (need[i] ? p : undefined));
        },
      };
    },
  },
);

function splitShapes(x: SymShape, a: Attrs, where: string): Dim[][] {
  const ax = normAxis(num(a, 'axis'), x.length, where);
  const sizes = ints(a, 'split');
  const total = sizes.reduce((s, n) => s + n, 0);
  if (!dimEquals(total, x[ax]!)) throw new ShapeError(`${where}: sizes [${sizes.join(',')}] do not add up to axis ${ax} of ${printShape(x)}`);
  return sizes.map((n) => x.map((d, i) => (i === ax ? n : d)));
}

const split = defineOp(
  {
    name: 'Split',
    doc: 'y₁ … yₙ = x cut along the axis into parts of the sizes given',
    inputs: 1,
    attrs: { axis: { kind: 'int', default: 0 }, split: { kind: 'ints' } },
    outputs: (a) => ints(a, 'split').length,
  },
  {
    kernelsOnly: true,
    shapes: ([x], a, where) => splitShapes(x!, a, where),
    forward: ([x], ctx: OpCtx, a, where) => {
      const ax = normAxis(num(a, 'axis'), x!.rank, where);
      const ys = splitShapes(x!.shape, a, where).map((s) => ctx.alloc(s as number[], x!.dtype, true));
      blocks(ys, x!, ax, false);
      return {
        ys,
        pullback: (dys, [need]) => {
          if (!need || dys.every((d) => !d)) return [undefined];
          const parts = ys.map((y, i) => dys[i] ?? ctx.alloc(y.shape, x!.dtype));
          const dx = ctx.alloc(x!.shape, x!.dtype, true);
          blocks(parts, dx, ax, true);
          return [dx];
        },
      };
    },
  },
);

export const JOIN_OPS: readonly OpDef[] = [concat, split];
