import type { Tensor } from '../../tensor/tensor.js';
import type { Ir, IrBox } from './ir.js';

/** What a rewrite rule sees of the boxes around the one it looks at (src/io/onnx/rewrite.ts runs the rules). */
export interface RewriteView {
  readonly ir: Ir;
  producer(w: number): IrBox | undefined;
  /** The live boxes reading w. */
  readers(w: number): readonly IrBox[];
  /** w's value when a parameter box writes it and `reader` is its only reader. */
  ownParam(w: number, reader: IrBox): Tensor | undefined;
  /** w's value when it is a constant of one entry. */
  scalar(w: number): number | undefined;
  /** Whether the wire is [B, …] with the batch only first. */
  batchFirst(w: number): boolean;
  /** Whether the only reader of w is `b` (and w is not the output). */
  onlyReader(w: number, b: IrBox): boolean;
  /** Where b stands in the boxes' order. */
  position(b: IrBox): number;
}

export interface Rewritten {
  /** The boxes the new one replaces (parameters it took in included). */
  readonly remove: readonly IrBox[];
  /** The box that replaces them; none for a box that computes the identity, whose output is then its input (`alias`). */
  readonly add?: IrBox;
  /** [input, output]: every reader of the output reads the input instead. */
  readonly alias?: readonly [number, number];
  /** What was folded, for the import's notes. */
  readonly what: string;
}

export type RewriteRule = (b: IrBox, v: RewriteView) => Rewritten | undefined;
