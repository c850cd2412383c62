import { backend } from '../tensor/registry.js';
import { defineOp, num } from './op.js';
import type { OpDef } from './op.js';
import { REDUCE_OPS } from './reduce.js';
import { backendWindow, forEachWindow, geometry, outSpatial, spatialOf, WINDOW_ATTRS } from './window.js';
import type { Geometry } from './window.js';

/**
 * MaxPool and AveragePool over the spatial axes of [N, C, …] (pads, strides, dilations,
 * ceil_mode, count_include_pad), on the backend's pooling kernels when the window is a plain
 * one (no padding, no dilation, not ceil_mode), a loop over the windows otherwise; the global
 * pools are ReduceMean and ReduceMax over the spatial axes.
 */

const POOL_ATTRS = { ...WINDOW_ATTRS, ceil_mode: { kind: 'int', default: 0 } } as const;

const poolGeometry = (x: readonly (number | { k: number })[], a: Parameters<OpDef['make']>[0], where: string): Geometry =>
  geometry(a, 1, spatialOf(x, where), undefined, where, num(a, 'ceil_mode') !== 0);

/** Whether the backend's kernel takes this window (square for MaxPool, which reads kh and sh only). */
function onKernel(g: Geometry, max: boolean): boolean {
  const w = backendWindow(g);
  return (
    !!w &&
    w.ph === 0 &&
    w.pw === 0 &&
    (!max || (g.kh === g.kw && g.sh === g.sw)) &&
    g.Ho === Math.floor((g.H - g.kh) / g.sh) + 1 &&
    g.Wo === Math.floor((g.W - g.kw) / g.sw) + 1
  );
}

const maxPool = defineOp(
  {
    name: 'MaxPool',
    doc: 'y = the maximum over each window (the gradient to the first largest)',
    inputs: 1,
    attrs: { ...POOL_ATTRS, storage_order: { kind: 'int', default: 0 } },
  },
  {
    shapes: ([x], a, where) => [[x![0]!, x![1]!, ...outSpatial(poolGeometry(x!, a, where), x!.length - 2)]],
    forward: ([x], ctx, a, where) => {
      const g = poolGeometry(x!.shape, a, where);
      const planes = x!.shape[0]! * x!.shape[1]!;
      const y = ctx.alloc([x!.shape[0]!, x!.shape[1]!, ...outSpatial(g, x!.rank - 2)], x!.dtype, true);
      const arg = ctx.alloc(y.shape, 'float64', true);
      const be = backend();
      if (onKernel(g, true)) be.maxPool(backendWindow(g)!, x!.data, planes, y.data, arg.data);
      else
        forEachWindow(g, planes, (o, taps) => {
          let best = -Infinity,
            at = taps[0] ?? -1;
          for (const t of taps) {
            const v = x!.data[t]!;
            if (!(v <= best)) {
              best = v;
              at = t;
              if (v !== v) break;
            }
          }
          y.data[o] = best;
          arg.data[o] = at;
        });
      return {
        ys: [y],
        pullback: ([dy], [need]) => {
          if (!dy || !need) return [undefined];
          const dx = ctx.alloc(x!.shape, x!.dtype);
          be.scatterAdd(dy.data, arg.data, dx.data);
          return [dx];
        },
      };
    },
  },
);

const averagePool = defineOp(
  {
    name: 'AveragePool',
    doc: 'y = the mean over each window (counting the padding when count_include_pad)',
    inputs: 1,
    attrs: { ...POOL_ATTRS, count_include_pad: { kind: 'int', default: 0 } },
  },
  {
    shapes: ([x], a, where) => [[x![0]!, x![1]!, ...outSpatial(poolGeometry(x!, a, where), x!.length - 2)]],
    forward: ([x], ctx, a, where) => {
      const g = poolGeometry(x!.shape, a, where);
      const planes = x!.shape[0]! * x!.shape[1]!;
      const y = ctx.alloc([x!.shape[0]!, x!.shape[1]!, ...outSpatial(g, x!.rank - 2)], x!.dtype);
      const be = backend();
      const kernel = onKernel(g, false);
      const withPad = num(a, 'count_include_pad') !== 0;
      const each = (f: (o: number, taps: readonly number[], n: number) => void): void =>
        forEachWindow(g, planes, (o, taps, padded) => f(o, taps, withPad ? padded : taps.length));
      if (kernel) be.avgPool(backendWindow(g)!, x!.data, planes, y.data);
      else
        each((o, taps, n) => {
          let s = 0;
          for (const t of taps) s += x!.data[t]!;
          y.data[o] = n ? s / n : 0;
        });
      return {
        ys: [y],
        pullback: ([dy], [need]) => {
          if (!dy || !need) return [undefined];
          const dx = ctx.alloc(x!.shape, x!.dtype);
          if (kernel) be.avgPoolBackward(backendWindow(g)!, dy.data, planes, dx.data);
          else
            each((o, taps, n) => {
              for (const t of taps) dx.data[t] = dx.data[t]! + dy.data[o]! / n;
            });
          return [dx];
        },
      };
    },
  },
);

/** A global pool: the reduction over every axis after the channels, keeping them as size 1. */
function globalPool(name: string, reduction: string, doc: string): OpDef {
  const reduce = REDUCE_OPS.find((d) => d.name === reduction)!;
  const over = (x: { length: number }): number[] => Array.from({ length: x.length - 2 }, (_, i) => i + 2);
  return defineOp(
    { name, doc, inputs: 1 },
    {
      shapes: ([x], _a, where) => {
        spatialOf(x!, where);
        return reduce.make({ axes: over(x!) }).shapes([x!]);
      },
      forward: ([x], ctx) => reduce.make({ axes: over(x!.shape) }).forward([x!], ctx),
    },
  );
}

export const POOL_OPS: readonly OpDef[] = [
  maxPool,
  averagePool,
  globalPool('GlobalAveragePool', 'ReduceMean', 'y = the mean of each channel over the spatial axes'),
  globalPool('GlobalMaxPool', 'ReduceMax', 'y = the maximum of each channel over the spatial axes'),
];
