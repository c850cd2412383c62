import type { Ctx, ParamSpec } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';

/**
 * A recurrent cell: a morphism c: S ⊗ A → S ⊗ B of Para (state and input to the next state and
 * an output: a Mealy machine with parameters), with its state size S, input size A and output
 * size B. With an initial state s₀: 1 → S it is an algebra for the endofunctor 1 + A × − (Gavranović
 * et al., "Categorical Deep Learning is an Algebraic Theory of All Architectures", ICML 2024):
 * its fold over a list is the catamorphism, its scan the list of outputs on the way, and its
 * unfold (the output fed back as the next input) the anamorphism.
 *
 * `run` is the cell unrolled over a whole sequence — T copies of c composed along the state wire,
 * every copy reading the same θ — as one lens: its pullback is the reverse composite of the
 * steps' pullbacks, each adding its dθ into the same buffers (the weight tying's pullback sums
 * them: BPTT is nothing but this pullback). src/nn/recurrent/unroll.ts builds that composite
 * literally from Para's pieces; the tests check every cell's `run` against it.
 */
export interface Cell {
  /** The cell's name in spec strings (`lstm_cell`), and its arguments. */
  readonly kind: string;
  readonly args: readonly (number | string)[];
  /** Sizes of the input A, the state S and the output B (per sequence, per step). */
  readonly input: number;
  readonly state: number;
  readonly output: number;
  readonly params: readonly ParamSpec[];
  /**
   * The cell over a sequence x [batch, T, A] from the states s0 [batch, S] (zeros when
   * undefined). With `bptt` = K, the pullback is truncated: no gradient crosses the state wire
   * into step t from step t−1 when t is a positive multiple of K (a stop-gradient on the wire
   * there; the forward is unchanged).
   */
  run(theta: readonly Tensor[], x: Tensor, s0: Tensor | undefined, ctx: Ctx, bptt?: number): CellRun;
  toString(): string;
}

/** A cell run at a point: outputs y [batch, T, B], final states s [batch, S], and the pullback. */
export interface CellRun {
  readonly y: Tensor;
  readonly s: Tensor;
  /**
   * From dy (to every output; null for none) and ds (to the final state; null for none): adds
   * dθ into `dTheta` (when given) and returns dx [batch, T, A] (zeros when not `needDx`) and ds0.
   */
  pullback(dy: Tensor | null, ds: Tensor | null, dTheta: readonly Tensor[] | null, needDx?: boolean): { dx: Tensor; ds0: Tensor };
}

/** Whether the truncated pullback (Cell.run's bptt) stops the gradient on the state wire into step t. */
export function cutBefore(t: number, bptt: number | undefined): boolean {
  return bptt !== undefined && t > 0 && t % bptt === 0;
}

/** The spec string of a cell: kind(args). */
export function cellString(c: Pick<Cell, 'kind' | 'args'>): string {
  return c.args.length ? `${c.kind}(${c.args.join(',')})` : c.kind;
}
