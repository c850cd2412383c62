import type { Ctx } from '../../para/para.js';
import type { Tensor } from '../../tensor/tensor.js';
import type { Cell } from './cell.js';

/**
 * Decoding a scan one stretch of positions at a time: the state is carried from each step to
 * the next, so the k-th position costs one cell step whatever came before it (no window, no
 * recomputation) — the stepper of a recurrent layer is the cell's Mealy machine itself.
 */
export function scanStepper(cell: Cell, theta: readonly Tensor[], ctx: Ctx): { step(x: Tensor): Tensor } {
  let s: Tensor | undefined;
  return {
    step: (x) => {
      const r = cell.run(theta, x, s, ctx);
      s = r.s.clone();
      return r.y;
    },
  };
}
