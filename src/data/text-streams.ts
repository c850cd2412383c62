import { DataError } from '../errors.js';
import type { Rng } from '../random/rng.js';

/**
 * B streams reading a text in consecutive windows (how a recurrent model is trained with its
 * state carried from one window to the next): the text is cut into B segments of ⌊N/B⌋
 * characters, stream b reads segment b from a seeded random start, window after window of T
 * characters (x[b, t] = ids[p + t], the target y[b, t] = ids[p + t + 1]), and starts over at the
 * segment's beginning when the next window would leave it.
 */
export class TextStreams {
  private readonly segment: number;
  /** Where each stream's next window starts. */
  readonly positions: number[];

  constructor(
    readonly length: number,
    readonly T: number,
    readonly B: number,
    rng: Rng,
  ) {
    this.segment = Math.floor(length / B);
    if (this.segment < T + 1) {
      throw new DataError(
        `${length} characters cannot hold ${B} streams of windows of ${T} characters and the one after (each stream needs ${T + 1}); use a smaller --batch or --context`,
      );
    }
    this.positions = Array.from({ length: B }, (_, b) => b * this.segment + rng.int(this.segment - T));
  }

  /** Fills x and y [B, T] with each stream's next window; returns the streams that started over. */
  next(ids: Float32Array, x: Float32Array | Float64Array, y: Float32Array | Float64Array): number[] {
    const { T, B, segment } = this;
    const restarted: number[] = [];
    for (let b = 0; b < B; b++) {
      let p = this.positions[b]!;
      if (p + T + 1 > (b + 1) * segment) {
        p = b * segment;
        restarted.push(b);
      }
      x.set(ids.subarray(p, p + T), b * T);
      y.set(ids.subarray(p + 1, p + T + 1), b * T);
      this.positions[b] = p + T;
    }
    return restarted;
  }

  /** Puts the streams where a checkpoint found them (each inside its segment). */
  restore(positions: readonly number[]): void {
    if (positions.length !== this.B || positions.some((p, b) => !(Number.isInteger(p) && p >= b * this.segment && p <= (b + 1) * this.segment)))
      throw new DataError(`the checkpoint's ${positions.length} stream positions do not fit ${this.B} streams of ${this.segment} characters`);
    positions.forEach((p, b) => (this.positions[b] = p));
  }
}
