import { RangeArgError } from '../../errors.js';
import type { Ctx } from '../../para/para.js';
import { Tensor } from '../../tensor/tensor.js';
import type { DType } from '../../tensor/tensor.js';

/**
 * How a pass runs the recurrent layers of a model besides their parameters: how far back their
 * pullbacks reach (truncated backpropagation through time, `--bptt K`) and where their initial
 * states come from (a StateCarry: the final states of the previous window of the same streams).
 * It travels with the pass's Ctx (withRegime), so the layers read it where they run and nothing
 * else in the model needs to know.
 */
export interface RecurrentRegime {
  /** Truncate every recurrent layer's pullback every K steps (Cell.run's bptt). */
  readonly bptt?: number;
  /** Initial states from, and final states to, consecutive windows. */
  readonly carry?: StateCarry;
}

/** The Ctx of a pass that runs recurrent layers under `regime`. */
export function withRegime(ctx: Ctx, regime: RecurrentRegime): Ctx {
  return { ...ctx, recurrent: regime } as Ctx;
}

/** The regime a pass runs under (none: zero initial states, the full pullback). */
export function regimeOf(ctx: Ctx): RecurrentRegime | undefined {
  return (ctx as Ctx & { recurrent?: RecurrentRegime }).recurrent;
}

/** Checks a truncation length: a positive integer. */
export function checkBptt(K: number): void {
  if (!(Number.isInteger(K) && K >= 1)) throw new RangeArgError(`--bptt must be a positive integer number of steps, got ${K}`);
}

/**
 * The states that recurrent layers hand from one window to the next: the k-th recurrent layer
 * a pass runs reads slot k's states as its initial states and leaves its final states there
 * (copied out of the pass's memory, which the next step reuses). The next window of the same
 * streams then starts where this one ended; its pullback stops at the window's start (the
 * carried states are constants: truncation at every window boundary).
 */
export class StateCarry {
  private slots: (Tensor | undefined)[] = [];
  private cursor = 0;

  /** Call before each pass: the layers take their slots in order again. */
  begin(): void {
    this.cursor = 0;
  }

  /** The next layer's slot. */
  slot(): number {
    return this.cursor++;
  }

  /** Slot k's states, when it holds states of this batch and size (else the layer starts from zeros). */
  initial(k: number, batch: number, S: number): Tensor | undefined {
    const s = this.slots[k];
    return s && s.shape[0] === batch && s.shape[1] === S ? s : undefined;
  }

  /** Keeps s [batch, S] as slot k's states. */
  keep(k: number, s: Tensor): void {
    const old = this.slots[k];
    if (old && old.size === s.size && old.dtype === s.dtype) old.data.set(s.data);
    else this.slots[k] = new Tensor(s.dtype === 'float64' ? Float64Array.from(s.data) : Float32Array.from(s.data), s.shape);
  }

  /** Zeros the states of the given rows (streams that start over), in every slot. */
  reset(rows: readonly number[]): void {
    for (const s of this.slots) {
      if (!s) continue;
      const S = s.shape[1]!;
      for (const r of rows) s.data.fill(0, r * S, (r + 1) * S);
    }
  }

  /** The states held, slot by slot (for a checkpoint). */
  save(): { shape: number[]; values: number[] }[] {
    return this.slots.map((s) => (s ? { shape: [...s.shape], values: Array.from(s.data) } : { shape: [0, 0], values: [] }));
  }

  /** Restores states saved by `save` (float32, or `dtype`). */
  load(saved: readonly { shape: readonly number[]; values: readonly number[] }[], dtype: DType = 'float32'): void {
    this.slots = saved.map((e) => {
      const [b, S] = e.shape;
      if (!(e.shape.length === 2 && Number.isInteger(b) && Number.isInteger(S) && b! * S! === e.values.length && e.values.every(Number.isFinite))) {
        throw new RangeArgError(`a carried recurrent state must be [batch, S] finite values, got shape [${e.shape.join(',')}] with ${e.values.length} values`);
      }
      return b === 0 ? undefined : Tensor.of(e.values, [b!, S!], dtype);
    });
    this.cursor = 0;
  }
}
