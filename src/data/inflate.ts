import { formatBytes, TooLargeError } from '../errors.js';

/**
 * How far compressed data (a .gz file, a deflated .npz entry) may inflate, decided before it is
 * inflated: to 4 MiB whatever its size, beyond that to 100 times its compressed size. Real data
 * compresses a few times (tables 3–10×, images 2–4×, noisy floats hardly at all); a
 * decompression bomb a thousand times, and what it costs is the inflated size — so under this
 * rule inflating costs at most a hundred times the bytes a file really has.
 */
export const MAX_INFLATE_RATIO = 100;
export const INFLATE_FLOOR = 2 ** 22;

/** The most `compressed` bytes may inflate to under the ratio rule, and at most `max`. */
export function inflateCap(compressed: number, max: number): number {
  return Math.min(max, Math.max(INFLATE_FLOOR, MAX_INFLATE_RATIO * compressed));
}

/** The refusal of `what` (a file, an entry), `compressed` bytes that would inflate past `cap` (the limit `max`, or the ratio rule). */
export function inflateRefusal(what: string, compressed: number, cap: number, max: number): TooLargeError {
  const why =
    cap < max
      ? `more than ${MAX_INFLATE_RATIO} times its ${formatBytes(compressed)} (a decompression bomb, or data so regular that it should be given uncompressed)`
      : `more than the ${formatBytes(max)} paralens reads`;
  return new TooLargeError(`${what} inflates to ${why}`, { bytes: cap });
}
