import { RangeArgError, ShapeError } from '../errors.js';
import { makeCtx } from '../para/para.js';
import type { Para } from '../para/para.js';
import type { Rng } from '../random/rng.js';
import { Tensor } from '../tensor/tensor.js';
import { stepper as stepperOf } from './decode.js';
import type { Stepper } from './decode.js';
import { argmax } from './metrics.js';

export interface SampleOptions {
  /** Softmax temperature: logits are divided by it; 0 takes the most likely id (greedy). */
  temperature?: number;
  /** Sample among the k most likely ids only (0 or undefined: all of them). */
  topK?: number;
}

/** One id drawn from logits z[0…V−1] at the given temperature, among the top k. */
export function sampleLogits(z: ArrayLike<number>, rng: Rng, opts: SampleOptions = {}): number {
  const temperature = opts.temperature ?? 1;
  if (!(temperature >= 0 && Number.isFinite(temperature))) throw new RangeArgError(`temperature must be ≥ 0, got ${temperature}`);
  const k = opts.topK ?? 0;
  if (!(Number.isInteger(k) && k >= 0)) throw new RangeArgError(`top-k must be a non-negative integer, got ${k}`);
  if (temperature === 0 || k === 1) return argmax(z);
  const V = z.length;
  let cut = -Infinity;
  if (k > 0 && k < V) cut = Array.from(z).sort((a, b) => b - a)[k - 1]!;
  let max = -Infinity;
  for (let i = 0; i < V; i++) if (z[i]! > max) max = z[i]!;
  const w = new Float64Array(V);
  for (let i = 0; i < V; i++) w[i] = z[i]! >= cut ? Math.exp((z[i]! - max) / temperature) : 0;
  return rng.categorical(w);
}

export interface GenerateOptions extends SampleOptions {
  /** The longest context the model is run on (its training context): see generate. */
  window: number;
  rng: Rng;
}

/**
 * Whether decoding keeps to the training window: the model attends over a cache of past
 * positions (attention, and what contains it). A model of recurrent and position-wise layers
 * carries a state of fixed size from each position to the next and runs on indefinitely.
 */
function windowed(m: Para): boolean {
  return m.kind === 'attention' || m.children.some(windowed);
}

/**
 * Continues `prompt` (ids) by n ids, each sampled from the model's prediction after the ids
 * before it. The model runs incrementally (./decode.ts: attention keeps a key/value cache)
 * on a window of at most `window` ids: when the window is full it is refilled with its last
 * ⌊window/2⌋ ids, so every id is predicted from between ⌊window/2⌋ and `window` ids of
 * context — exactly as a full forward over those ids would predict it — and n ids cost
 * O(n·window) position steps in all, not O(n·window²). A model without attention (recurrent
 * layers carry their state: generation is the unfold of the cell with the sampled id fed back)
 * reads the whole prompt once and then one id per step, with no window and no recomputation.
 */
export function generate(model: Para, theta: readonly Tensor[], prompt: readonly number[], n: number, opts: GenerateOptions): number[] {
  const T = opts.window;
  if (!(Number.isInteger(T) && T >= 2)) throw new RangeArgError(`the generation window must be an integer ≥ 2, got ${T}`);
  if (prompt.length === 0) throw new RangeArgError('generation needs a prompt of at least one character');
  if (!(Number.isInteger(n) && n >= 0)) throw new RangeArgError(`the number of tokens must be a non-negative integer, got ${n}`);
  const fresh = (): Stepper => {
    const s = stepperOf(model, theta, makeCtx());
    if (!s) throw new ShapeError(`${model} cannot be decoded one position at a time (it needs causal attention and positionwise layers)`);
    return s;
  };
  /** Runs ids through the stepper; the logits after the last one. */
  const feed = (s: Stepper, ids: readonly number[]): Float32Array | Float64Array => {
    const y = s.step(Tensor.of(ids, [1, ids.length], theta[0]?.dtype ?? 'float32'));
    const V = y.shape[y.rank - 1]!;
    return y.data.subarray(y.size - V);
  };
  const half = Math.floor(T / 2);
  if (!windowed(model)) {
    const stepper = fresh();
    let logits = feed(stepper, prompt);
    const out: number[] = [];
    for (let k = 0; k < n; k++) {
      const next = sampleLogits(logits, opts.rng, opts);
      out.push(next);
      if (k < n - 1) logits = feed(stepper, [next]);
    }
    return out;
  }
  let win = prompt.slice(-T);
  let stepper = fresh();
  let logits = feed(stepper, win);
  const out: number[] = [];
  for (let k = 0; k < n; k++) {
    const next = sampleLogits(logits, opts.rng, opts);
    out.push(next);
    if (k === n - 1) break;
    if (win.length === T) {
      win = [...win.slice(win.length - half + 1), next];
      stepper = fresh();
      logits = feed(stepper, win);
    } else {
      win = [...win, next];
      logits = feed(stepper, [next]);
    }
  }
  return out;
}
