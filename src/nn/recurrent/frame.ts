import { formatCount, ShapeError, TooLargeError } from '../../errors.js';
import type { Ctx } from '../../para/para.js';
import { backend } from '../../tensor/registry.js';
import type { Data, DType, Tensor } from '../../tensor/tensor.js';

/**
 * What the gated cells (rnn, lstm, gru, mgu) share around their step loops: sequences turned
 * time-major (so step t's rows are one contiguous [batch, n] block that a gemm reads), the input
 * projection of every step in one product before the loop, and after the pullback's loop the
 * weight gradients of every step in one product each. Between them a step costs one product
 * with W_hh (two for mgu) and one pass of elementwise gate math (src/tensor/recurrent-kernels.ts);
 * lstm and gru hand all their steps to the backend in one call (Backend.lstmSequence,
 * gruSequence and their pullbacks), which lets the wasm backend pack W_hh once per pass and run
 * the batch's rows on its threads through every step; rnn and mgu loop over the steps in their
 * own files.
 */

/** The most floats a recurrent layer may keep for one pass (activations and their gradients): 2²⁸, 1 GiB of float32. */
export const MAX_RECURRENT_FLOATS = 2 ** 28;

/**
 * Refuses a pass whose activations would pass MAX_RECURRENT_FLOATS, before any is allocated:
 * `perStep` floats for each of T steps of each of `batch` sequences.
 */
export function checkActivations(where: string, batch: number, T: number, perStep: number): void {
  const total = batch * T * perStep;
  if (total > MAX_RECURRENT_FLOATS) {
    throw new TooLargeError(
      `${where} on ${formatCount(batch)} sequences of ${formatCount(T)} steps would keep ${formatCount(total)} floats of activations (T × batch × ${perStep} per step); at most ${formatCount(MAX_RECURRENT_FLOATS)}: use a shorter --context or a smaller --batch`,
      { elements: total, bytes: 4 * total },
    );
  }
}

/** Throws unless x is [batch, T, n] with T ≥ 1. */
export function checkSequence(where: string, x: Tensor, n: number): void {
  if (x.rank !== 3 || x.shape[2] !== n) throw new ShapeError(`${where} expects a sequence [*,T,${n}] per sample but got [${x.shape.join(',')}]`);
  if (x.shape[1] === 0) throw new ShapeError(`${where}: a sequence of length 0 has no steps; T must be at least 1`);
}

/** Throws unless s is [batch, S]. */
export function checkState(where: string, s: Tensor, batch: number, S: number): void {
  if (s.rank !== 2 || s.shape[0] !== batch || s.shape[1] !== S)
    throw new ShapeError(`${where} expects initial states [${batch},${S}] (state size ${S}) but got [${s.shape.join(',')}]`);
}

/** x [B, T, n] as [T, B, n] (step t's rows contiguous). */
export function timeMajor(x: Tensor, ctx: Ctx): Tensor {
  const [B, T, n] = x.shape as [number, number, number];
  const y = ctx.alloc([T, B, n], x.dtype, true);
  if (T === 1 || B === 1) y.data.set(x.data);
  else backend().swapAxes(x.data, B, T, n, y.data);
  return y;
}

/** The first T steps of a time-major buffer [≥T, B, n] as a batch-major tensor [B, T, n]. */
export function batchMajor(xt: Data, T: number, B: number, n: number, dt: DType, ctx: Ctx): Tensor {
  const y = ctx.alloc([B, T, n], dt, true);
  if (T === 1 || B === 1) y.data.set(xt.subarray(0, T * B * n));
  else backend().swapAxes(xt.subarray(0, T * B * n), T, B, n, y.data);
  return y;
}

/** Step t's block of a time-major buffer with rows of `width`. */
export function step(data: Data, t: number, rows: number, width: number): Data {
  return data.subarray(t * rows * width, (t + 1) * rows * width);
}

/**
 * The input projections of every step at once: XT [T·B, A] · W_ihᵀ + bias → [T, B, width]
 * (one product of T·B rows). `bias` is b_ih, or b_ih + b_hh for cells whose step adds its
 * W_hh product into the same pre-activations (rnn, lstm).
 */
export function inputProjection(XT: Tensor, W: Tensor, bias: Data, width: number, ctx: Ctx): Tensor {
  const [T, B, A] = XT.shape as [number, number, number];
  const z = ctx.alloc([T, B, width], XT.dtype, true);
  backend().gemm(false, true, T * B, width, A, XT.data, W.data, z.data, false, bias);
  return z;
}

/** b_ih + b_hh in a fresh vector. */
export function summedBias(bih: Tensor, bhh: Tensor, ctx: Ctx): Data {
  const s = ctx.alloc(bih.shape, bih.dtype, true).data;
  s.set(bih.data);
  backend().axpy(1, bhh.data, s);
  return s;
}

/**
 * The state parts (h, and c for lstm) of s0 [B, parts·H] into the first block of each
 * time-major state buffer; zeros when there is no s0.
 */
export function loadState(s0: Tensor | undefined, B: number, H: number, buffers: readonly Data[]): void {
  const be = backend();
  buffers.forEach((buf, p) => {
    if (s0) be.copyRows(B, H, s0.data.subarray(p * H), buffers.length * H, buf, H);
    else buf.fill(0, 0, B * H);
  });
}

/** The blocks [B, H] side by side as states [B, parts·H]. */
export function joinState(blocks: readonly Data[], B: number, H: number, dt: DType, ctx: Ctx): Tensor {
  const S = blocks.length * H;
  const s = ctx.alloc([B, S], dt, true);
  blocks.forEach((blk, p) => backend().copyRows(B, H, blk, H, s.data.subarray(p * H), S));
  return s;
}

/** The gradient of the outputs, time-major ([T, B, H]), or null. */
export function outputGradient(dy: Tensor | null, ctx: Ctx): Tensor | null {
  return dy ? timeMajor(dy, ctx) : null;
}

/**
 * After the pullback's loop: dW_ih += dZᵀ·XT and db_ih += Σ dZ over every step at once (dZ the
 * pre-activation gradients [T·B, width]), and dx = dZ·W_ih back in batch-major order.
 */
export function inputPullback(dZ: Tensor, XT: Tensor, W: Tensor, dW: Tensor | undefined, db: Tensor | undefined, needDx: boolean, ctx: Ctx): Tensor {
  const [T, B, A] = XT.shape as [number, number, number];
  const width = dZ.shape[2]!;
  const be = backend();
  if (dW) be.gemm(true, false, width, A, T * B, dZ.data, XT.data, dW.data, true);
  if (db) be.sumRows(dZ.data, T * B, width, db.data, true);
  if (!needDx) return ctx.alloc([B, T, A], XT.dtype);
  const dXT = ctx.alloc([T, B, A], XT.dtype, true);
  be.gemm(false, false, T * B, A, width, dZ.data, W.data, dXT.data, false);
  return batchMajor(dXT.data, T, B, A, XT.dtype, ctx);
}

/** dW += dZᵀ·H (rows `rows` of dZ and H, the weight's slice of rows `width` × H) and db += Σ dZ. */
export function recurrentPullback(dZ: Data, Hs: Data, rows: number, width: number, H: number, dW: Data, db: Data): void {
  const be = backend();
  be.gemm(true, false, width, H, rows, dZ, Hs, dW, true);
  be.sumRows(dZ, rows, width, db, true);
}
