import type { CliIO } from '../command.js';

/** A figure for the HTML report: an inline SVG with a caption. */
export interface Figure {
  readonly caption: string;
  readonly svg: string;
}

/** What one perspective of the tour found. */
export interface TourOutput {
  /** Readable lines for the terminal (and the report). */
  readonly lines: string[];
  /** The numbers behind the lines, for `tour --json`. */
  readonly data: Record<string, unknown>;
  /** Pictures for `tour --report`. */
  readonly figures?: Figure[];
  /** Rows of the seed's summary table: categorical concept → the paralens function that implements it. */
  readonly summary?: [concept: string, implementation: string][];
}

export interface TourContext {
  readonly seed: number;
  /** Progress and logs (stderr). */
  readonly io: CliIO;
}

/** One section of `paralens tour`: a perspective run on built-in data. */
export interface TourSection {
  readonly id: string;
  readonly title: string;
  run(ctx: TourContext): Promise<TourOutput>;
}
