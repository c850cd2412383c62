import { RangeArgError, ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import { sizeOf } from '../tensor/tensor.js';
import type { Tensor } from '../tensor/tensor.js';
import { broadcastShapes, normAxis, printShape } from './dim.js';
import { defineOp, num } from './op.js';
import type { OpDef } from './op.js';
import { expandTo, sumToShape } from './strided.js';

/**
 * The normalisations and dropout: BatchNormalization as the affine map it is at inference
 * (running statistics), LayerNormalization over the trailing axes from `axis` (the backend's
 * layerNorm kernel), Dropout (the identity in evaluation, a scaled Bernoulli mask in training).
 */

const batchNorm = defineOp(
  {
    name: 'BatchNormalization',
    doc: 'y = scale·(x − mean)/√(var + ε) + bias per channel (axis 1), with the running statistics',
    inputs: 5,
    attrs: { epsilon: { kind: 'float', default: 1e-5 }, momentum: { kind: 'float', default: 0.9 }, training_mode: { kind: 'int', default: 0 } },
  },
  {
    // the running statistics are the model's state, not weights: no gradient reaches them (as in PyTorch)
    constantInputs: [3, 4],
    check: (a, where) => {
      if (num(a, 'training_mode') !== 0)
        throw new RangeArgError(`${where}: training_mode 1 (batch statistics) is not read; export the model in evaluation mode`);
    },
    shapes: (ins, _a, where) => {
      const x = ins[0]!;
      if (x.length < 2) throw new ShapeError(`${where}: expects [N, C, …], got ${printShape(x)}`);
      for (const p of ins.slice(1))
        if (!(p.length === 1 && p[0] === x[1])) throw new ShapeError(`${where}: ${printShape(p)} is not one value per channel of ${printShape(x)}`);
      return [x];
    },
    forward: (xs, ctx, a) => {
      const [x, scale, bias, mean, variance] = xs as [Tensor, Tensor, Tensor, Tensor, Tensor];
      const eps = num(a, 'epsilon');
      const N = x.shape[0]!,
        C = x.shape[1]!,
        P = sizeOf(x.shape.slice(2));
      const r = new Float64Array(C);
      for (let c = 0; c < C; c++) r[c] = 1 / Math.sqrt(variance.data[c]! + eps);
      const y = ctx.alloc(x.shape, x.dtype, true);
      for (let n = 0; n < N; n++)
        for (let c = 0; c < C; c++) {
          const s = scale.data[c]! * r[c]!,
            m = mean.data[c]!,
            b = bias.data[c]!;
          for (let i = (n * C + c) * P, e = i + P; i < e; i++) y.data[i] = (x.data[i]! - m) * s + b;
        }
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return [undefined, undefined, undefined, undefined, undefined];
          const dx = need[0] ? ctx.alloc(x.shape, x.dtype, true) : undefined;
          const sums = new Float64Array(C),
            sumsX = new Float64Array(C);
          for (let n = 0; n < N; n++)
            for (let c = 0; c < C; c++) {
              const s = scale.data[c]! * r[c]!,
                m = mean.data[c]!;
              for (let i = (n * C + c) * P, e = i + P; i < e; i++) {
                const g = dy.data[i]!;
                sums[c] = sums[c]! + g;
                sumsX[c] = sumsX[c]! + g * (x.data[i]! - m);
                if (dx) dx.data[i] = g * s;
              }
            }
          const per = (f: (c: number) => number, i: number): Tensor | undefined => {
            if (!need[i]) return undefined;
            const t = ctx.alloc([C], x.dtype, true);
            for (let c = 0; c < C; c++) t.data[c] = f(c);
            return t;
          };
          return [
            dx,
            per((c) => sumsX[c]! * r[c]!, 1),
            per((c) => sums[c]!, 2),
            per((c) => -sums[c]! * scale.data[c]! * r[c]!, 3),
            // ∂/∂var of (x − m)·s·(var + ε)^{−1/2} = −½ (x − m)·s·(var + ε)^{−3/2}
            per((c) => -0.5 * sumsX[c]! * scale.data[c]! * r[c]! ** 3, 4),
          ];
        },
      };
    },
  },
);

const layerNorm = defineOp(
  {
    name: 'LayerNormalization',
    doc: 'y = scale·(x − μ)/√(σ² + ε) + bias, μ and σ² over the axes from `axis` on',
    inputs: [2, 3],
    attrs: { axis: { kind: 'int', default: -1 }, epsilon: { kind: 'float', default: 1e-5 }, stash_type: { kind: 'int', default: 1 } },
  },
  {
    shapes: (ins, a, where) => {
      const x = ins[0]!;
      const ax = normAxis(num(a, 'axis'), x.length, where);
      for (const p of ins.slice(1)) broadcastShapes(x.slice(ax), p, where);
      return [x];
    },
    forward: (xs, ctx, a, where) => {
      const [x, scale, bias] = xs as [Tensor, Tensor, Tensor | undefined];
      const ax = normAxis(num(a, 'axis'), x.rank, where);
      const inner = x.shape.slice(ax);
      const d = sizeOf(inner),
        rows = d === 0 ? 0 : x.size / d;
      // the kernel takes a gain and bias of d values: a smaller one broadcast first
      const full = (p: Tensor): Tensor => (p.size === d ? p : expandTo(p, inner, ctx));
      const g = full(scale),
        b = bias ? full(bias) : undefined;
      const be = backend();
      const y = ctx.alloc(x.shape, x.dtype, true),
        xhat = ctx.alloc(x.shape, x.dtype, true),
        r = ctx.alloc([rows], x.dtype, true);
      be.layerNorm(x.data, rows, d, g.data, b?.data, num(a, 'epsilon'), true, y.data, xhat.data, r.data);
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return [undefined, undefined, undefined];
          const dx = need[0] ? ctx.alloc(x.shape, x.dtype, true) : undefined;
          const dg = need[1] ? ctx.alloc(inner, x.dtype) : undefined;
          const db = bias && need[2] ? ctx.alloc(inner, x.dtype) : undefined;
          be.layerNormBackward(dy.data, xhat.data, r.data, rows, d, g.data, true, dx?.data, dg?.data, db?.data);
          return [dx, dg && sumToShape(dg, scale.shape, ctx), db && bias && sumToShape(db, bias.shape, ctx)];
        },
      };
    },
  },
);

const dropout = defineOp(
  {
    name: 'Dropout',
    pointwise: true,
    doc: 'y = x in evaluation; in training each entry kept with probability 1 − ratio and scaled by 1/(1 − ratio)',
    inputs: 1,
    attrs: { ratio: { kind: 'float', default: 0.5 }, seed: { kind: 'int', default: 0 } },
  },
  {
    check: (a, where) => {
      const p = num(a, 'ratio');
      if (!(p >= 0 && p < 1)) throw new RangeArgError(`${where}: ratio must be in [0, 1)`);
    },
    shapes: ([x]) => [x!],
    forward: ([x], ctx, a) => {
      const p = num(a, 'ratio');
      if (!ctx.training || p === 0) return { ys: [x!], pullback: ([dy], [need]) => [need ? dy : undefined] };
      const keep = 1 / (1 - p);
      const mask = ctx.alloc(x!.shape, x!.dtype, true);
      for (let i = 0; i < mask.size; i++) mask.data[i] = ctx.rng.uniform() < p ? 0 : keep;
      const y = ctx.alloc(x!.shape, x!.dtype, true);
      for (let i = 0; i < y.size; i++) y.data[i] = x!.data[i]! * mask.data[i]!;
      return {
        ys: [y],
        pullback: ([dy], [need]) => {
          if (!dy || !need) return [undefined];
          const dx = ctx.alloc(x!.shape, x!.dtype, true);
          for (let i = 0; i < dx.size; i++) dx.data[i] = dy.data[i]! * mask.data[i]!;
          return [dx];
        },
      };
    },
  },
);

export const NORM_OPS: readonly OpDef[] = [batchNorm, layerNorm, dropout];
