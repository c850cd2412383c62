import { ShapeError } from '../errors.js';
import { checkWindow, evaluationWindows } from '../data/text.js';
import { logSumExpRows } from '../nn/softmax.js';
import { Arena, makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import { Tensor } from '../tensor/tensor.js';

/** Windows per forward pass when evaluating. */
const EVAL_BATCH = 32;

/** The model fixed to windows of T characters, checked to predict one of V ids at each position. */
export function atContext(model: Para, T: number, V: number): Para {
  const m = model.at([T]);
  if (!m.cod || m.cod.length !== 2 || m.cod[0] !== T || m.cod[1] !== V) {
    throw new ShapeError(`${model} on windows of ${T} characters outputs [*,${m.cod?.join(',') ?? '…'}], but next-character prediction over this vocabulary needs [*,${T},${V}] (use vocab for the vocabulary size)`);
  }
  return m;
}

/**
 * Mean cross-entropy in bits per character over a text: every character but the first
 * predicted once, from the characters before it inside a window of length T
 * (evaluationWindows: non-overlapping windows, and one aligned to the end for the rest).
 * Evaluation mode; `positionOffset` places every window's first character at that position.
 */
export function bitsPerChar(model: Para, theta: readonly Tensor[], ids: Float32Array, T: number, V: number, opts: { positionOffset?: number } = {}): number {
  checkWindow('evaluation text', ids, T);
  const m = atContext(model, T, V);
  const windows = evaluationWindows(ids.length, T);
  const arena = new Arena();
  const lse = new Float64Array(EVAL_BATCH * T);
  let nats = 0, count = 0;
  for (let w0 = 0; w0 < windows.length; w0 += EVAL_BATCH) {
    const part = windows.slice(w0, w0 + EVAL_BATCH);
    arena.reset();
    const x = new Tensor(arena.alloc([part.length, T], 'float32', true).data, [part.length, T]);
    part.forEach((w, b) => x.data.set(ids.subarray(w.start, w.start + T), b * T));
    const z = m.forward(theta, x, makeCtx({ alloc: arena.alloc, positionOffset: opts.positionOffset })).y;
    logSumExpRows(z.data, part.length * T, V, lse);
    part.forEach((w, b) => {
      for (let t = w.from; t < T; t++) {
        const r = b * T + t;
        nats += lse[r]! - z.data[r * V + ids[w.start + t + 1]!]!;
        count++;
      }
    });
  }
  return nats / count / Math.LN2;
}
