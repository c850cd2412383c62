import { DataError } from '../errors.js';
import type { Rng } from '../random/rng.js';

/**
 * Character-level text: the vocabulary is the sorted set of characters (Unicode code points)
 * of the training text, and one more id, the last, for any character outside it. Ids travel
 * as float32 numbers (exact integers up to 2²⁴), as every tensor does.
 */
export interface TextCorpus {
  readonly name: string;
  /** Id i is vocabulary[i]; id vocabulary.length stands for an unknown character. */
  readonly vocabulary: readonly string[];
  /** The first 90 % of the characters, as ids. */
  readonly train: Float32Array;
  /** The last 10 %, as ids (characters the training text lacks are the unknown id). */
  readonly val: Float32Array;
}

/** The number of ids: the characters and the unknown one. */
export function vocabSize(vocabulary: readonly string[]): number {
  return vocabulary.length + 1;
}

/** The sorted set of code points of `text`. */
export function characterVocabulary(text: string): string[] {
  const cps = new Set<number>();
  for (const ch of text) cps.add(ch.codePointAt(0)!);
  return [...cps].sort((a, b) => a - b).map((c) => String.fromCodePoint(c));
}

/**
 * A vocabulary of exactly `size` characters for a model whose number of ids is fixed (an
 * imported one: size + 1 ids with the unknown one): the `size` most frequent characters of
 * `text` (ties to the lower code point), sorted; when the text has fewer, the rest are
 * private-use characters (U+E000 …) that no text holds, so their ids are never read.
 */
export function vocabularyOfSize(text: string, size: number): string[] {
  const counts = new Map<number, number>();
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  const kept = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, size)
    .map(([c]) => c);
  kept.sort((a, b) => a - b);
  const out = kept.map((c) => String.fromCodePoint(c));
  for (let p = 0xe000; out.length < size; p++) if (!counts.has(p)) out.push(String.fromCodePoint(p));
  return out;
}

/** Ids of the characters of `text` (the unknown id for those outside the vocabulary). */
export function encodeText(text: string, vocabulary: readonly string[]): Float32Array {
  const index = new Map(vocabulary.map((c, i) => [c, i]));
  const unknown = vocabulary.length;
  const out = new Float32Array(countCodePoints(text));
  let i = 0;
  for (const ch of text) out[i++] = index.get(ch) ?? unknown;
  return out;
}

/** The distinct characters of `text` that `vocabulary` lacks (they encode as the unknown id), in the order they first appear. */
export function outsideVocabulary(text: string, vocabulary: readonly string[]): string[] {
  const known = new Set(vocabulary);
  return [...new Set(Array.from(text).filter((c) => !known.has(c)))];
}

/** The text of some ids; the unknown id reads as U+FFFD. */
export function decodeText(ids: ArrayLike<number>, vocabulary: readonly string[]): string {
  let s = '';
  for (let i = 0; i < ids.length; i++) s += vocabulary[ids[i]!] ?? '\uFFFD';
  return s;
}

function countCodePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= text.length) n++;
    else {
      const next = text.charCodeAt(i + 1);
      n++;
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return n;
}

/**
 * A corpus from one text: the first (1 − valFraction) of its characters train, the rest
 * validate; the vocabulary is the training part's, unless one is given (a saved model's).
 * A text too short to hold one window of `minWindow` characters (plus the next one) in
 * each part is a DataError.
 */
export function textCorpus(
  name: string,
  text: string,
  opts: { valFraction?: number; minWindow?: number; vocabulary?: readonly string[]; vocabularySize?: number } = {},
): TextCorpus {
  const valFraction = opts.valFraction ?? 0.1;
  const chars = Array.from(text);
  const nTrain = Math.floor(chars.length * (1 - valFraction));
  const min = (opts.minWindow ?? 1) + 1;
  if (nTrain < min || chars.length - nTrain < min) {
    throw new DataError(`${name}: ${chars.length} characters are too few: training and validation need at least ${min} characters each`);
  }
  const trainText = chars.slice(0, nTrain).join('');
  const vocabulary = opts.vocabulary ?? (opts.vocabularySize !== undefined ? vocabularyOfSize(trainText, opts.vocabularySize) : characterVocabulary(trainText));
  return { name, vocabulary, train: encodeText(trainText, vocabulary), val: encodeText(chars.slice(nTrain).join(''), vocabulary) };
}

/** Throws unless `ids` hold one window of T characters and the one after it. */
export function checkWindow(name: string, ids: ArrayLike<number>, T: number): void {
  if (ids.length < T + 1)
    throw new DataError(`${name}: ${ids.length} characters cannot hold a window of ${T} and the character after it; use a smaller --context`);
}

/**
 * B training windows at seeded random starts: x[b, t] = ids[s_b + t] and the target
 * y[b, t] = ids[s_b + t + 1] (the next character), s_b uniform on 0 … N − T − 1.
 */
export function sampleWindows(ids: Float32Array, T: number, rng: Rng, x: Float32Array | Float64Array, y: Float32Array | Float64Array): void {
  const B = x.length / T,
    starts = ids.length - T;
  for (let b = 0; b < B; b++) {
    const s = rng.int(starts);
    x.set(ids.subarray(s, s + T), b * T);
    y.set(ids.subarray(s + 1, s + T + 1), b * T);
  }
}

/**
 * B windows like sampleWindows', at evenly spaced starts instead of random ones
 * (s_b = ⌊b·(N − T − 1)/(B − 1)⌋): a fixed, seed-free sample of a text.
 */
export function spacedWindows(ids: Float32Array, T: number, x: Float32Array | Float64Array, y: Float32Array | Float64Array): void {
  const B = x.length / T,
    last = ids.length - T - 1;
  for (let b = 0; b < B; b++) {
    const s = B > 1 ? Math.floor((b * last) / (B - 1)) : 0;
    x.set(ids.subarray(s, s + T), b * T);
    y.set(ids.subarray(s + 1, s + T + 1), b * T);
  }
}

/**
 * Windows of length T covering every prediction of a text (ids[1…N−1], each from the
 * characters before it inside its window): non-overlapping windows at 0, T, 2T, …, and,
 * when N − 1 is not a multiple of T, a last window ending at the end of which only the
 * positions from `from` on are new.
 */
export function evaluationWindows(n: number, T: number): { start: number; from: number }[] {
  const predictions = n - 1,
    out: { start: number; from: number }[] = [];
  let s = 0;
  for (; s + T <= predictions; s += T) out.push({ start: s, from: 0 });
  if (s < predictions) out.push({ start: predictions - T, from: T - (predictions - s) });
  return out;
}
