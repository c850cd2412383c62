import { ParalensError } from '../../errors.js';
import type { AdamStep, Backend, DeviceMemory, LossKind, MatrixBatch, SwapOp, UnaryOp } from '../backend.js';
import { jsBackend } from '../js-backend.js';
import type { Data } from '../tensor.js';
import type { Window } from '../window.js';
import { requestGpuDevice } from './adapter.js';
import * as K from './kernels.js';
import { groups1d, GpuQueue, MAX_GROUPS } from './queue.js';
import * as S from './sequence-kernels.js';
import { hostRecurrentKernels } from './recurrent.js';
import { opCode } from './wgsl-math.js';
import type { Kernel } from './program.js';

const LOSS_CODE: Record<LossKind, number> = { mse: 0, bce: 1, 'softmax-cross-entropy': 2, 'token-cross-entropy': 3 };

/** A gemm's operands as a batch of one (rows ld apart as they are stored). */
const single = (data: Data, ld: number): MatrixBatch => ({ data, ld, outer: 0, inner: 0 });

export interface WebGpuBackendOptions {
  /** Where calls on host arrays run (every kernel with a host output): default the reference backend. */
  host?: Backend;
  /** Backend name (default 'webgpu'). */
  name?: string;
}

/** The webgpu backend: kernels on a GPU for device arrays, and what the GPU is. */
export interface WebGpuBackend extends Backend {
  readonly device: DeviceMemory;
  /** The backend that runs calls on host arrays. */
  readonly host: Backend;
  /** Dispatches queued so far (a test can see that work went to the device). */
  dispatches(): number;
  /** Bytes of device arrays allocated so far. */
  allocatedBytes(): number;
}

/**
 * A Backend on WebGPU. A kernel whose output is a device array (DeviceMemory.alloc) is queued
 * on the GPU, its host inputs copied there for the call; a kernel whose arguments are all host
 * arrays runs on the host backend (as float64 arguments go to the reference backend on wasm),
 * so that everything else a program computes keeps working. A kernel that would have to bring
 * device values into a host output synchronously throws E_BACKEND: values come back only
 * through `device.read`, asynchronously.
 */
export async function createWebGpuBackend(options: WebGpuBackendOptions = {}): Promise<WebGpuBackend> {
  const gpu = await requestGpuDevice();
  const q = new GpuQueue(gpu.device);
  const host = options.host ?? jsBackend;
  const on = (x: Data): boolean => q.arrays.holds(x);

  /** True when `out` is on the device; else checks that no input is (the call then runs on the host). */
  function onDevice(where: string, out: Data, ...inputs: (Data | undefined)[]): boolean {
    if (on(out)) return true;
    for (const x of inputs) {
      if (x && on(x))
        throw new ParalensError(
          'E_BACKEND',
          `webgpu: ${where} would write device values into a host array; bring them back with await backend.device.read(x)`,
          false,
        );
    }
    return false;
  }

  const run1d = (k: Kernel, consts: Record<string, number | boolean>, arrays: Data[], n: number, scalars: number[] = [n]): void =>
    q.run(k, consts, arrays, scalars, groups1d(n, K.WG));

  /**
   * The gemm kernel over the count[0] × count[1] products of a batch, in dispatches of at most
   * MAX_GROUPS rows of workgroups (a product has ⌈m/TILE⌉ of them).
   */
  function products(
    tA: boolean,
    tB: boolean,
    m: number,
    n: number,
    k: number,
    a: MatrixBatch,
    b: MatrixBatch,
    c: MatrixBatch,
    count: readonly [number, number],
    acc: boolean,
    bias?: Data,
    op: UnaryOp = 'identity',
  ): void {
    const total = count[0] * count[1],
      rowTiles = Math.ceil(m / K.TILE);
    if (total === 0 || m === 0 || n === 0) return;
    const per = Math.max(1, Math.floor(MAX_GROUPS / rowTiles));
    const consts = { TA: tA, TB: tB, ACC: acc, BIAS: bias !== undefined, OP: opCode(op) };
    for (let first = 0; first < total; first += per) {
      const scalars = [m, n, k, a.ld, b.ld, c.ld, a.outer, a.inner, b.outer, b.inner, c.outer, c.inner, count[1], first, rowTiles];
      q.run(K.gemm, consts, [a.data, b.data, c.data, bias ?? c.data], scalars, [Math.ceil(n / K.TILE), Math.min(per, total - first) * rowTiles]);
    }
  }

  const device: DeviceMemory = {
    label: gpu.label,
    emulated: gpu.emulated,
    alloc: (n) => q.arrays.alloc(n),
    holds: on,
    write: (dst, src) => q.write(dst, src),
    read: (x) => q.read(x),
    markNonFinite: (x, flag) => run1d(K.markNonFinite, {}, [x, flag], x.length),
    done: () => q.done(),
  };

  const be: WebGpuBackend = {
    name: options.name ?? 'webgpu',
    device,
    host,
    dispatches: () => q.dispatches,
    allocatedBytes: () => q.arrays.allocatedBytes,

    gemm(tA, tB, m, n, k, a, b, c, acc, bias, op: UnaryOp = 'identity') {
      if (!onDevice('gemm', c, a, b, bias)) return host.gemm(tA, tB, m, n, k, a, b, c, acc, bias, op);
      products(tA, tB, m, n, k, single(a, tA ? m : k), single(b, tB ? k : n), single(c, n), [1, 1], acc, bias, op);
    },
    gemmBatched(tA, tB, m, n, k, a, b, c, count, acc) {
      if (!onDevice('gemmBatched', c.data, a.data, b.data)) return host.gemmBatched(tA, tB, m, n, k, a, b, c, count, acc);
      products(tA, tB, m, n, k, a, b, c, count, acc);
    },
    attentionSoftmax(sc, blocks, Tq, Tk, scale, causal, qOffset, bias, heads = 1) {
      if (!onDevice('attentionSoftmax', sc, bias)) return host.attentionSoftmax(sc, blocks, Tq, Tk, scale, causal, qOffset, bias, heads);
      run1d(S.attentionSoftmax, { CAUSAL: causal, BIAS: bias !== undefined }, [sc, bias ?? sc], blocks * Tq, [blocks * Tq, Tq, Tk, heads, qOffset, scale]);
    },
    attentionSoftmaxBackward(p, dp, rows, n, scale) {
      if (!onDevice('attentionSoftmaxBackward', dp, p)) return host.attentionSoftmaxBackward(p, dp, rows, n, scale);
      run1d(S.attentionSoftmaxBackward, {}, [p, dp], rows, [rows, n, scale]);
    },
    rotatePairs(x, count, d, r, groups, inverse) {
      if (!on(x)) return host.rotatePairs(x, count, d, r, groups, inverse);
      const n = count * r.T * groups * r.half;
      run1d(S.rotatePairs, { INVERSE: inverse }, [x, r.cos, r.sin], n, [n, r.T, r.half, groups, d]);
    },
    gatherRows(ids, table, d, y) {
      if (!onDevice('gatherRows', y, ids, table)) return host.gatherRows(ids, table, d, y);
      run1d(S.gatherRows, {}, [ids, table, y], ids.length * d, [ids.length * d, d]);
    },
    scatterRows(dy, ids, d, dTable) {
      if (!onDevice('scatterRows', dTable, dy, ids)) return host.scatterRows(dy, ids, d, dTable);
      run1d(S.scatterRows, {}, [dy, ids, dTable], ids.length * d, [ids.length * d, d]);
    },
    layerNorm(x, rows, d, g, b, eps, centre, y, xhat, r) {
      if (!onDevice('layerNorm', y, x, g, b)) return host.layerNorm(x, rows, d, g, b, eps, centre, y, xhat, r);
      run1d(S.layerNorm, { CENTRE: centre, BIAS: b !== undefined }, [x, g, b ?? g, y, xhat, r], rows, [rows, d, eps]);
    },
    layerNormBackward(dy, xhat, r, rows, d, g, centre, dx, dg, db) {
      const out = dx ?? dg ?? db;
      if (!out) return;
      if (!onDevice('layerNormBackward', out, dy, xhat, r, g)) return host.layerNormBackward(dy, xhat, r, rows, d, g, centre, dx, dg, db);
      if (dx) run1d(S.layerNormBackward, { CENTRE: centre }, [dy, xhat, r, g, dx], rows, [rows, d]);
      if (dg || db) run1d(S.layerNormParams, { DG: dg !== undefined, DB: db !== undefined }, [dy, xhat, (dg ?? db)!, (db ?? dg)!], d, [rows, d]);
    },
    unary(op, x, out) {
      if (!onDevice('unary', out, x)) return host.unary(op, x, out);
      run1d(K.unary, { OP: opCode(op) }, [x, out], x.length);
    },
    unaryBackward(op, x, y, dy, dx, acc) {
      if (!onDevice('unaryBackward', dx, x, y, dy)) return host.unaryBackward(op, x, y, dy, dx, acc);
      run1d(K.unaryBackward, { OP: opCode(op), ACC: acc }, [x, y, dy, dx], dy.length);
    },
    addRowVector(x, v, rows, cols, out, op) {
      if (!onDevice('addRowVector', out, x, v)) return host.addRowVector(x, v, rows, cols, out, op);
      run1d(K.addRowVector, { OP: opCode(op) }, [x, v, out], rows * cols, [rows * cols, cols]);
    },
    sumRows(x, rows, cols, out, acc) {
      if (!onDevice('sumRows', out, x)) return host.sumRows(x, rows, cols, out, acc);
      q.run(K.sumRows, { ACC: acc }, [x, out], [rows, cols], groups1d(cols, K.WG));
    },
    axpy(alpha, x, y) {
      if (!onDevice('axpy', y, x)) return host.axpy(alpha, x, y);
      run1d(K.axpy, {}, [x, y], x.length, [x.length, alpha]);
    },
    allFinite(x) {
      if (on(x)) throw new ParalensError('E_BACKEND', 'webgpu: allFinite cannot answer for a device array synchronously; use device.markNonFinite', false);
      return host.allFinite(x);
    },
    adam(p, g, m, v, h: AdamStep) {
      if (!onDevice('adam', p, g, m, v)) return host.adam(p, g, m, v, h);
      run1d(K.adam, {}, [p, g, m, v], p.length, [p.length, h.b1, 1 - h.b1, h.b2, 1 - h.b2, h.step, h.epsHat, h.l2, h.shrink]);
    },
    im2col(g: Window, x, xOff, count, col, ld) {
      if (!onDevice('im2col', col, x)) return host.im2col(g, x, xOff, count, col, ld);
      const S = g.C * g.H * g.W,
        n = g.C * g.kh * g.kw * count * g.Ho * g.Wo;
      run1d(K.im2col, {}, [x.subarray(xOff, xOff + count * S), col], n, [...windowScalars(g, count, ld), n]);
    },
    col2im(g: Window, col, ld, count, dx, xOff) {
      if (!onDevice('col2im', dx, col)) return host.col2im(g, col, ld, count, dx, xOff);
      const n = count * g.C * g.H * g.W;
      run1d(K.col2im, {}, [col, dx.subarray(xOff, xOff + n)], n, [...windowScalars(g, count, ld), n]);
    },
    maxPool(g: Window, x, planes, y, arg) {
      if (!onDevice('maxPool', y, x)) return host.maxPool(g, x, planes, y, arg);
      const n = planes * g.Ho * g.Wo;
      run1d(K.maxPool, {}, [x, y, arg], n, [g.H, g.W, g.kh, g.sh, g.Ho, g.Wo, n]);
    },
    avgPool(g: Window, x, planes, y) {
      if (!onDevice('avgPool', y, x)) return host.avgPool(g, x, planes, y);
      const n = planes * g.Ho * g.Wo;
      run1d(K.avgPool, {}, [x, y], n, [g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.Ho, g.Wo, n]);
    },
    avgPoolBackward(g: Window, dy, planes, dx) {
      if (!onDevice('avgPoolBackward', dx, dy)) return host.avgPoolBackward(g, dy, planes, dx);
      const n = planes * g.H * g.W;
      run1d(K.avgPoolBackward, {}, [dy, dx], n, [g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.Ho, g.Wo, n]);
    },
    scatterAdd(dy, arg, dx) {
      if (!onDevice('scatterAdd', dx, dy, arg)) return host.scatterAdd(dy, arg, dx);
      run1d(K.scatterAdd, {}, [dy, arg, dx], dy.length);
    },
    swapAxes(x, A, B, P, y, bias, op: SwapOp = 'identity') {
      if (!onDevice('swapAxes', y, x, bias)) return host.swapAxes(x, A, B, P, y, bias, op);
      const n = A * B * P;
      run1d(K.swapAxes, { BIAS: bias !== undefined, OP: opCode(op) }, [x, bias ?? x, y], n, [A, B, P, n]);
    },
    fill(x, value) {
      if (!on(x)) return host.fill(x, value);
      run1d(K.fill, {}, [x], x.length, [x.length, value]);
    },
    copyRows(rows, cols, src, ldSrc, dst, ldDst) {
      if (!onDevice('copyRows', dst, src)) return host.copyRows(rows, cols, src, ldSrc, dst, ldDst);
      run1d(K.copyRows, {}, [src, dst], rows * cols, [rows * cols, cols, ldSrc, ldDst]);
    },
    softmax(x, rows, n, y) {
      if (!onDevice('softmax', y, x)) return host.softmax(x, rows, n, y);
      run1d(K.softmax, {}, [x, y], rows, [rows, n]);
    },
    softmaxBackward(y, dy, rows, n, dx) {
      if (!onDevice('softmaxBackward', dx, y, dy)) return host.softmaxBackward(y, dy, rows, n, dx);
      run1d(K.softmaxBackward, {}, [y, dy, dx], rows, [rows, n]);
    },
    lossGrad(kind, yhat, t, rows, cols, grad, rowLoss) {
      if (!onDevice('lossGrad', grad, yhat, t)) return host.lossGrad(kind, yhat, t, rows, cols, grad, rowLoss);
      run1d(K.lossGrad, { KIND: LOSS_CODE[kind] }, [yhat, t, grad, rowLoss], rows, [rows, cols]);
    },
    argmaxRows(y, rows, cols, threshold, out) {
      if (!onDevice('argmaxRows', out, y)) return host.argmaxRows(y, rows, cols, threshold, out);
      run1d(K.argmaxRows, {}, [y, out], rows, [rows, cols, threshold]);
    },
    ...hostRecurrentKernels(host, options.name ?? 'webgpu', on),
  };
  return be;
}

/** The window scalars of im2col and col2im, in the kernels' order. */
function windowScalars(g: Window, count: number, ld: number): number[] {
  return [g.C, g.H, g.W, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.Ho, g.Wo, count, ld];
}
