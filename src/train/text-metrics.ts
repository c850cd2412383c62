import { ShapeError } from '../errors.js';
import { checkWindow, evaluationWindows } from '../data/text.js';
import { logSumExpRows, softmaxRows } from '../nn/softmax.js';
import { hasRecurrentLayers, StateCarry, withRegime } from '../nn/recurrent/index.js';
import { makeCtx } from '../para/para.js';
import { Arena } from '../tensor/memory.js';
import type { Para } from '../para/para.js';
import type { Tensor } from '../tensor/tensor.js';

/** Windows per forward pass when evaluating. */
const EVAL_BATCH = 32;

/** The model fixed to windows of T characters, checked to predict one of V ids at each position. */
export function atContext(model: Para, T: number, V: number): Para {
  const m = model.at([T]);
  if (!m.cod || m.cod.length !== 2 || m.cod[0] !== T || m.cod[1] !== V) {
    throw new ShapeError(
      `${model} on windows of ${T} characters outputs [*,${m.cod?.join(',') ?? '…'}], but next-character prediction over this vocabulary needs [*,${T},${V}] (use vocab for the vocabulary size)`,
    );
  }
  return m;
}

/** A batch of evaluation windows: its windows and the model's logits on them ([windows, T, V]) at each offset asked for. */
type WindowBatch = (part: readonly { start: number; from: number }[], logits: readonly Tensor[]) => void;

/** Runs the model (evaluation mode) on the evaluation windows of a text in batches, at each position offset. */
function eachWindowBatch(model: Para, theta: readonly Tensor[], ids: Float32Array, T: number, V: number, offsets: readonly number[], fn: WindowBatch): void {
  checkWindow('evaluation text', ids, T);
  const m = atContext(model, T, V);
  const windows = evaluationWindows(ids.length, T);
  const arena = new Arena();
  for (let w0 = 0; w0 < windows.length; w0 += EVAL_BATCH) {
    const part = windows.slice(w0, w0 + EVAL_BATCH);
    arena.reset();
    const x = arena.alloc([part.length, T], 'float32', true);
    part.forEach((w, b) => x.data.set(ids.subarray(w.start, w.start + T), b * T));
    fn(
      part,
      offsets.map((o) => m.forward(theta, x, makeCtx({ alloc: arena.alloc, positionOffset: o })).y),
    );
  }
}

/**
 * Mean cross-entropy in bits per character over a text: every character but the first
 * predicted once, from the characters before it inside a window of length T
 * (evaluationWindows: non-overlapping windows, and one aligned to the end for the rest).
 * Evaluation mode; `positionOffset` places every window's first character at that position.
 * A model with recurrent layers carries its state across windows, as it was trained
 * (streamBitsPerChar).
 */
export function bitsPerChar(model: Para, theta: readonly Tensor[], ids: Float32Array, T: number, V: number, opts: { positionOffset?: number } = {}): number {
  if (hasRecurrentLayers(model)) return streamBitsPerChar(model, theta, ids, T, V);
  const lse = new Float64Array(EVAL_BATCH * T);
  let nats = 0,
    count = 0;
  eachWindowBatch(model, theta, ids, T, V, [opts.positionOffset ?? 0], (part, [z]) => {
    logSumExpRows(z!.data, part.length * T, V, lse);
    part.forEach((w, b) => {
      for (let t = w.from; t < T; t++) {
        const r = b * T + t;
        nats += lse[r]! - z!.data[r * V + ids[w.start + t + 1]!]!;
        count++;
      }
    });
  });
  return nats / count / Math.LN2;
}

/**
 * The shift defect of a next-character model: the mean total-variation distance
 * ½ Σ_c |p(c) − p_s(c)| between its predictions with every window at positions 0 … T−1 and
 * the same windows at positions s … s+T−1, over the evaluation windows of a text. Zero for a
 * model whose attention sees relative positions only (rope, relative, none); the distance
 * from that symmetry for one that does not (absolute).
 */
export function shiftDefect(model: Para, theta: readonly Tensor[], ids: Float32Array, T: number, V: number, shift: number): number {
  const p = new Float64Array(V),
    q = new Float64Array(V);
  let sum = 0,
    count = 0;
  eachWindowBatch(model, theta, ids, T, V, [0, shift], (part, [z0, z1]) => {
    part.forEach((w, b) => {
      for (let t = w.from; t < T; t++) {
        const o = (b * T + t) * V;
        softmaxRows(z0!.data.subarray(o, o + V), 1, V, p);
        softmaxRows(z1!.data.subarray(o, o + V), 1, V, q);
        let tv = 0;
        for (let c = 0; c < V; c++) tv += Math.abs(p[c]! - q[c]!);
        sum += tv / 2;
        count++;
      }
    });
  });
  return sum / count;
}

/** Segments of a text a recurrent model reads side by side when evaluated. */
const EVAL_STREAMS = 32;

/**
 * bitsPerChar for a model with recurrent layers: the text's predictions are cut into (up to 32)
 * contiguous segments read side by side in windows of T, each window starting from the states
 * the last one ended in (a StateCarry) — so every character but the first is predicted once,
 * from all the characters before it in its segment.
 */
export function streamBitsPerChar(model: Para, theta: readonly Tensor[], ids: Float32Array, T: number, V: number): number {
  checkWindow('evaluation text', ids, 1);
  const m = atContext(model, T, V);
  const P = ids.length - 1,
    E = Math.min(EVAL_STREAMS, P),
    L = Math.ceil(P / E);
  const carry = new StateCarry();
  const arena = new Arena();
  const lse = new Float64Array(E * T);
  // segment e predicts ids[p + 1] from ids[p] for p in [e·L, min((e+1)·L, P)); a window past a
  // segment's end is padded (the padding comes after what is scored, so it changes nothing)
  const end = (e: number): number => Math.min((e + 1) * L, P);
  let nats = 0,
    count = 0;
  for (let c0 = 0; c0 < L; c0 += T) {
    arena.reset();
    const x = arena.alloc([E, T], 'float32');
    for (let e = 0; e < E; e++) for (let t = 0; t < T && e * L + c0 + t < end(e); t++) x.data[e * T + t] = ids[e * L + c0 + t]!;
    carry.begin();
    const z = m.forward(theta, x, withRegime(makeCtx({ alloc: arena.alloc }), { carry })).y;
    logSumExpRows(z.data, E * T, V, lse);
    for (let e = 0; e < E; e++) {
      for (let t = 0; t < T && e * L + c0 + t < end(e); t++) {
        const r = e * T + t;
        nats += lse[r]! - z.data[r * V + ids[e * L + c0 + t + 1]!]!;
        count++;
      }
    }
  }
  return nats / count / Math.LN2;
}
