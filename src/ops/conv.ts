import { ShapeError } from '../errors.js';
import { backend } from '../tensor/registry.js';
import type { Tensor } from '../tensor/tensor.js';
import { dimEquals, printShape } from './dim.js';
import type { SymShape } from './dim.js';
import { defineOp, ints, num, word } from './op.js';
import type { Attrs, OpCtx, OpDef } from './op.js';
import { sumToShape } from './strided.js';
import { col2imAny, geometry, im2colAny, outSpatial, spatialOf, WINDOW_ATTRS } from './window.js';
import type { Geometry } from './window.js';

/**
 * Conv and ConvTranspose (1-d and 2-d; groups, strides, dilations, asymmetric pads, auto_pad,
 * non-square kernels) by im2col and gemm, per sample and group:
 *
 *   Conv           col = im2col(x_g),  y_g = W_g·col (+ b)
 *                  dW_g += dy_g·colᵀ,  dx_g += col2im(W_gᵀ·dy_g)
 *   ConvTranspose  y_g = col2im(W_gᵀ·x_g) (+ b) — Conv's pullback to its input, as a forward;
 *                  dx_g = W_g·im2col(dy_g),  dW_g += x_g·im2col(dy_g)ᵀ
 *
 * Weights as ONNX lays them out: Conv [O, C/g, k…], ConvTranspose [C, O/g, k…].
 */

const CONV_ATTRS = { ...WINDOW_ATTRS, group: { kind: 'int', default: 1 } } as const;

interface ConvPlan {
  readonly g: Geometry;
  readonly groups: number;
  readonly C: number;
  readonly O: number;
  readonly N: number;
  readonly rank: number;
}

function convPlan(x: SymShape, w: SymShape, a: Attrs, where: string): ConvPlan {
  const spatial = spatialOf(x, where);
  const groups = num(a, 'group');
  const C = x[1] as number,
    O = w[0] as number;
  if (w.length !== x.length) throw new ShapeError(`${where}: weight ${printShape(w)} does not fit input ${printShape(x)}`);
  if (!(groups >= 1 && C % groups === 0 && O % groups === 0 && w[1] === C / groups))
    throw new ShapeError(`${where}: input ${printShape(x)} and weight ${printShape(w)} do not fit ${groups} group(s)`);
  const g = geometry(a, C / groups, spatial, w.slice(2) as number[], where);
  return { g, groups, C, O, N: 0, rank: spatial.length };
}

const conv = defineOp(
  { name: 'Conv', doc: 'y = the cross-correlation of x with the weight [O, C/group, k…] (+ bias)', inputs: [2, 3], attrs: CONV_ATTRS },
  {
    shapes: ([x, w, b], a, where) => {
      const p = convPlan(x!, w!, a, where);
      if (b && !(b.length === 1 && dimEquals(b[0]!, p.O))) throw new ShapeError(`${where}: bias ${printShape(b)} for ${p.O} outputs`);
      return [[x![0]!, p.O, ...outSpatial(p.g, p.rank)]];
    },
    forward: (xs, ctx, a, where) => {
      const [x, w, b] = xs as [Tensor, Tensor, Tensor | undefined];
      const { g, groups, O } = convPlan(x.shape, w.shape, a, where);
      const be = backend();
      const N = x.shape[0]!,
        Og = O / groups,
        K = g.C * g.kh * g.kw,
        P = g.Ho * g.Wo,
        S = g.C * g.H * g.W;
      const dtype = x.dtype === 'float64' || w.dtype === 'float64' ? 'float64' : 'float32';
      const y = ctx.alloc([N, O, ...outSpatial(g, x.rank - 2)], dtype, true);
      const cols: Tensor[] = [];
      for (let n = 0; n < N; n++) {
        for (let q = 0; q < groups; q++) {
          const col = ctx.alloc([K, P], dtype, true);
          im2colAny(g, x.data, (n * groups + q) * S, col.data);
          cols.push(col);
          be.gemm(false, false, Og, P, K, w.data.subarray(q * Og * K), col.data, y.data.subarray((n * O + q * Og) * P), false);
        }
      }
      if (b) addChannelBias(y, b);
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return [undefined, undefined, undefined];
          const dx = need[0] ? ctx.alloc(x.shape, dtype) : undefined,
            dw = need[1] ? ctx.alloc(w.shape, dtype) : undefined;
          const dcol = dx ? ctx.alloc([K, P], dtype, true) : undefined;
          for (let n = 0; n < N; n++) {
            for (let q = 0; q < groups; q++) {
              const d = dy.data.subarray((n * O + q * Og) * P);
              if (dw) be.gemm(false, true, Og, K, P, d, cols[n * groups + q]!.data, dw.data.subarray(q * Og * K), true);
              if (dx && dcol) {
                be.gemm(true, false, K, P, Og, w.data.subarray(q * Og * K), d, dcol.data, false);
                col2imAny(g, dcol.data, dx.data, (n * groups + q) * S);
              }
            }
          }
          const db = b && need[2] ? channelSums(dy, b, ctx) : undefined;
          return [dx, dw, db];
        },
      };
    },
  },
);

/** y [N, O, …] += b [O] along the channel axis. */
function addChannelBias(y: Tensor, b: Tensor): void {
  const N = y.shape[0]!,
    O = y.shape[1]!,
    P = y.size / Math.max(1, N * O);
  for (let n = 0; n < N; n++) {
    for (let o = 0; o < O; o++) {
      const v = b.data[o]!;
      for (let i = (n * O + o) * P, end = i + P; i < end; i++) y.data[i] = y.data[i]! + v;
    }
  }
}

/** Σ of dy [N, O, …] over everything but the channel axis: the bias gradient. */
function channelSums(dy: Tensor, b: Tensor, ctx: OpCtx): Tensor {
  const O = dy.shape[1]!;
  return sumToShape(dy, [O, ...dy.shape.slice(2).map(() => 1)], ctx).reshape(b.shape);
}

interface TransposePlan {
  /** The window of the convolution from y-space to x-space whose adjoint this is. */
  readonly g: Geometry;
  readonly groups: number;
  readonly C: number;
  readonly O: number;
  readonly out: number[];
}

function transposePlan(x: SymShape, w: SymShape, a: Attrs, where: string): TransposePlan {
  const spatial = spatialOf(x, where);
  const r = spatial.length;
  const groups = num(a, 'group');
  const C = x[1] as number;
  if (w.length !== x.length || w[0] !== C || C % groups !== 0)
    throw new ShapeError(`${where}: weight ${printShape(w)} does not fit input ${printShape(x)} in ${groups} group(s)`);
  const O = (w[1] as number) * groups;
  const k = ints(a, 'kernel_shape').length ? ints(a, 'kernel_shape') : (w.slice(2) as number[]);
  const s = ints(a, 'strides').length ? ints(a, 'strides') : k.map(() => 1);
  const d = ints(a, 'dilations').length ? ints(a, 'dilations') : k.map(() => 1);
  const op = ints(a, 'output_padding').length ? ints(a, 'output_padding') : k.map(() => 0);
  let pads = ints(a, 'pads').length ? ints(a, 'pads') : k.flatMap(() => [0, 0]);
  const auto = word(a, 'auto_pad');
  // SAME_*: the output is the input times the stride, as if output_shape said so
  const given = ints(a, 'output_shape').length ? ints(a, 'output_shape') : auto.startsWith('SAME') ? spatial.map((n, i) => n * s[i]!) : [];
  // output size: s(n − 1) + op + d(k − 1) + 1 − pads; with output_shape the pads follow from it (auto_pad's rule)
  const full = spatial.map((n, i) => s[i]! * (n - 1) + op[i]! + d[i]! * (k[i]! - 1) + 1);
  if (given.length) {
    const total = full.map((f, i) => f - given[i]!);
    const upper = auto === 'SAME_UPPER';
    pads = [...total.map((t) => (upper ? Math.floor(t / 2) : t - Math.floor(t / 2))), ...total.map((t) => (upper ? t - Math.floor(t / 2) : Math.floor(t / 2)))];
  }
  const out = full.map((f, i) => f - pads[i]! - pads[i + r]!);
  if (out.some((n) => n < 1)) throw new ShapeError(`${where}: the output would be empty`);
  const g = geometry({ ...a, kernel_shape: k, strides: s, dilations: d, pads, auto_pad: 'NOTSET' }, O / groups, out, k, where);
  if (g.Ho * g.Wo !== spatial.reduce((p, n) => p * n, 1)) throw new ShapeError(`${where}: output_padding does not fit the strides`);
  return { g, groups, C, O, out };
}

const convTranspose = defineOp(
  {
    name: 'ConvTranspose',
    doc: 'y = the adjoint of Conv applied to x, weight [C, O/group, k…] (+ bias): a learned upsampling',
    inputs: [2, 3],
    attrs: { ...CONV_ATTRS, output_padding: { kind: 'ints', default: [] }, output_shape: { kind: 'ints', default: [] } },
  },
  {
    shapes: ([x, w], a, where) => {
      const p = transposePlan(x!, w!, a, where);
      return [[x![0]!, p.O, ...p.out]];
    },
    forward: (xs, ctx, a, where) => {
      const [x, w, b] = xs as [Tensor, Tensor, Tensor | undefined];
      const { g, groups, C, O, out } = transposePlan(x.shape, w.shape, a, where);
      const be = backend();
      const N = x.shape[0]!,
        Cg = C / groups,
        Og = O / groups,
        K = Og * g.kh * g.kw,
        P = g.Ho * g.Wo,
        S = Og * g.H * g.W;
      const dtype = x.dtype === 'float64' || w.dtype === 'float64' ? 'float64' : 'float32';
      const y = ctx.alloc([N, O, ...out], dtype);
      const col = ctx.alloc([K, P], dtype, true);
      for (let n = 0; n < N; n++) {
        for (let q = 0; q < groups; q++) {
          // col = W_gᵀ·x_g with W_g [Cg, K]
          be.gemm(true, false, K, P, Cg, w.data.subarray(q * Cg * K), x.data.subarray((n * C + q * Cg) * P), col.data, false);
          col2imAny(g, col.data, y.data, (n * groups + q) * S);
        }
      }
      if (b) addChannelBias(y, b);
      return {
        ys: [y],
        pullback: ([dy], need) => {
          if (!dy) return [undefined, undefined, undefined];
          const dx = need[0] ? ctx.alloc(x.shape, dtype) : undefined,
            dw = need[1] ? ctx.alloc(w.shape, dtype) : undefined;
          const dcol = ctx.alloc([K, P], dtype, true);
          for (let n = 0; n < N; n++) {
            for (let q = 0; q < groups; q++) {
              im2colAny(g, dy.data, (n * groups + q) * S, dcol.data);
              const xg = x.data.subarray((n * C + q * Cg) * P);
              if (dx) be.gemm(false, false, Cg, P, K, w.data.subarray(q * Cg * K), dcol.data, dx.data.subarray((n * C + q * Cg) * P), false);
              if (dw) be.gemm(false, true, Cg, K, P, xg, dcol.data, dw.data.subarray(q * Cg * K), true);
            }
          }
          const db = b && need[2] ? channelSums(dy, b, ctx) : undefined;
          return [dx, dw, db];
        },
      };
    },
  },
);

export const CONV_OPS: readonly OpDef[] = [conv, convTranspose];
